// gateway.gen.ts must be what `npm run gen` produces from the current schema.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { JSONSchema } from 'json-schema-to-typescript';
import { findSchemaDir } from '../../../core/config/schema-dir.js';
import { renderFromRepo, renderGatewayTypes } from '../../../scripts/gen-types.js';

const schemaDir = findSchemaDir();
const repoRoot = join(schemaDir, '..');

describe('gateway.gen.ts', () => {
  it('is current with schemas/gateway.schema.json', async () => {
    const { path, text } = await renderFromRepo();
    assert.equal(await readFile(path, 'utf8'), text, 'core/config/gateway.gen.ts is stale: run `npm run gen`');
  });

  it('changes when the schema changes, and carries the generated header', async () => {
    const schema = JSON.parse(await readFile(join(schemaDir, 'gateway.schema.json'), 'utf8')) as JSONSchema;
    const original = await renderGatewayTypes(schema, schemaDir);
    const edited = structuredClone(schema);
    edited.properties = { ...edited.properties, extra_field: { type: 'string' } };
    const changed = await renderGatewayTypes(edited, schemaDir);
    assert.notEqual(changed, original);
    assert.match(changed, /extra_field\?: string;/);
    assert.match(original, /^\/\/ Generated from schemas\/gateway\.schema\.json by `npm run gen`; do not edit\./);
  });

  it('passes `gen-types --check` as a script', async () => {
    const run = promisify(execFile);
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/gen-types.ts', '--check'], {
      cwd: repoRoot,
    });
    assert.equal(stdout + stderr, '');
  });
});

describe('findSchemaDir', () => {
  it('finds the repo schemas/ from a nested path', () => {
    assert.equal(findSchemaDir(join(repoRoot, 'core', 'config', 'load.ts')), schemaDir);
    assert.equal(findSchemaDir(new URL(`file://${join(repoRoot, 'test', 'x.ts')}`)), schemaDir);
  });

  it('throws when there is none above', () => {
    assert.throws(() => findSchemaDir('/tmp/nowhere/file.ts'), /schemas\/gateway\.schema\.json not found/);
  });
});
