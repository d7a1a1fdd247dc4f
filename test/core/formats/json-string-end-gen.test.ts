// json-string-end.wasm.gen.ts must be what `npm run gen` compiles from json-string-end.wat.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { findSchemaDir } from '../../../core/config/schema-dir.js';
import { renderFromRepo, renderWasmModule } from '../../../scripts/gen-wasm.js';

const repoRoot = join(findSchemaDir(), '..');

describe('json-string-end.wasm.gen.ts', () => {
  it('is current with json-string-end.wat', async () => {
    const { path, text } = await renderFromRepo();
    assert.equal(await readFile(path, 'utf8'), text, 'core/formats/json-string-end.wasm.gen.ts is stale: run `npm run gen`');
  });

  it('changes with the source, carries the generated header, and refuses a source that does not compile', async () => {
    const wat = await readFile(join(repoRoot, 'core', 'formats', 'json-string-end.wat'), 'utf8');
    const original = await renderWasmModule(wat);
    assert.match(original, /^\/\/ Generated from core\/formats\/json-string-end\.wat by `npm run gen`; do not edit\./);
    const edit = (from: string, to: string): string => {
      assert.ok(wat.includes(from), `the .wat no longer holds ${from}: pick another edit`);
      return wat.replace(from, to);
    };
    assert.notEqual(await renderWasmModule(edit('(i32.const 0x22)', '(i32.const 0x27)')), original);
    await assert.rejects(renderWasmModule(edit('(i8x16.bitmask', '(i8x16.no_such_op')));
  });

  it('passes `gen-wasm --check` as a script', async () => {
    const run = promisify(execFile);
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/gen-wasm.ts', '--check'], { cwd: repoRoot });
    assert.equal(stdout + stderr, '');
  });
});
