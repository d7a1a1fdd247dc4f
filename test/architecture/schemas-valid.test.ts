// Every schema file under schemas/ is a valid draft-07 JSON Schema: the gateway compiles its own schemas without
// checking them against the meta-schema (core/config/schema-compiler.ts says why), so the check is made here, once.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { schemaCompiler } from '../../core/config/schema-compiler.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const DIR = join(REPO_ROOT, 'schemas');

function schemaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? schemaFiles(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : []));
}

test('every schema under schemas/ is valid against the draft-07 meta-schema', () => {
  const ajv = new Ajv({ strict: false });
  const files = schemaFiles(DIR);
  assert.ok(files.length > 50, `only ${files.length} schema files found`);
  const invalid = files.flatMap((file) => {
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    assert.equal(schema['$schema'], 'http://json-schema.org/draft-07/schema#', `${relative(REPO_ROOT, file)} declares draft-07`);
    return ajv.validateSchema(schema) === true ? [] : [`${relative(REPO_ROOT, file)}: ${ajv.errorsText(ajv.errors)}`];
  });
  assert.deepEqual(invalid, []);
});

test('the check catches a malformed schema, which the gateway\'s compiler would take', () => {
  const malformed = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string', minLength: -1, description: 7 };
  assert.equal(new Ajv({ strict: false }).validateSchema(malformed), false);
  assert.doesNotThrow(() => schemaCompiler({ strict: false }).compile(malformed));
});
