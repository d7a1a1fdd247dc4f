// Every schema file under schemas/ and a feature's schemas/ is a valid draft-07 JSON Schema: the gateway compiles its own schema files without
// checking them against the meta-schema (core/config/schema-compiler.ts says why), so the check is made here, once;
// and each compiles in strict mode, which some of the gateway's compilers do not ask for.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { schemaCompiler } from '../../core/config/schema-compiler.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const DIR = join(REPO_ROOT, 'schemas');
const FEATURE_DIRS = readdirSync(join(REPO_ROOT, 'features'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && readdirSync(join(REPO_ROOT, 'features', e.name)).includes('schemas'))
  .map((e) => join(REPO_ROOT, 'features', e.name, 'schemas'));

interface SchemaFile {
  readonly file: string;
  readonly schema: { readonly $id?: string; readonly $schema?: string };
}

function schemaFiles(dir: string): SchemaFile[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return schemaFiles(path);
    return e.name.endsWith('.json') ? [{ file: relative(REPO_ROOT, path), schema: JSON.parse(readFileSync(path, 'utf8')) as SchemaFile['schema'] }] : [];
  });
}

test('every schema under schemas/ is valid against the draft-07 meta-schema', () => {
  const ajv = new Ajv({ strict: false });
  const files = [DIR, ...FEATURE_DIRS].flatMap(schemaFiles);
  assert.ok(files.length > 50, `only ${files.length} schema files found`);
  const invalid = files.flatMap(({ file, schema }) => {
    assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#', `${file} declares draft-07`);
    return ajv.validateSchema(schema) === true ? [] : [`${file}: ${ajv.errorsText(ajv.errors)}`];
  });
  assert.deepEqual(invalid, []);
});

test('every schema under schemas/ compiles in strict mode: no unknown keyword, no misspelled one', () => {
  // One instance for all, so that references between files resolve (a feature's console schemas use core's values);
  // with the formats the schemas name. Every $id is distinct: each names its file's place.
  const refused = [[DIR, ...FEATURE_DIRS].flatMap(schemaFiles)].flatMap((files) => {
    const ajv = schemaCompiler({ strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats.default(ajv);
    for (const { schema } of files) if (schema.$id !== undefined) ajv.addSchema(schema);
    return files.flatMap(({ file, schema }) => {
      try {
        if (schema.$id === undefined) ajv.compile(schema);
        else ajv.getSchema(schema.$id);
        return [];
      } catch (err) {
        return [`${file}: ${(err as Error).message}`];
      }
    });
  });
  assert.deepEqual(refused, []);
});

test("the checks catch a malformed schema and a misspelled keyword, which the gateway's compilers may take", () => {
  const malformed = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string', minLength: -1, description: 7 };
  assert.equal(new Ajv({ strict: false }).validateSchema(malformed), false);
  assert.doesNotThrow(() => schemaCompiler({ strict: false }).compile(malformed));
  const misspelled = { type: 'object', propertys: { a: { type: 'string' } } };
  assert.throws(() => schemaCompiler({ strict: true }).compile(misspelled), /unknown keyword/);
  assert.doesNotThrow(() => schemaCompiler({ strict: false }).compile(misspelled));
});
