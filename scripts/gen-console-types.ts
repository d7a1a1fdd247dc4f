// `npm run gen`: writes console/src/api-types.gen.ts, the types of the console API's answers, from
// schemas/console/*.response.schema.json and the features' (features/<name>/schemas/console/) (the schemas test/e2e/console-schemas.test.ts holds the answers to); each
// type is named by its schema's title. `--check` fails when the file is stale.

import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { schemaFolders } from '../core/config/schema-files.js';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { findSchemaDir } from '../core/config/schema-dir.js';
import { isMainScript, writeOrCheck } from './generated-file.js';

const BANNER =
  '// Generated from schemas/console/*.response.schema.json by `npm run gen`; do not edit. Change the schemas and regenerate.';

/** Every answer's type, compiled as one document so that a type two answers share is written once. */
export async function renderConsoleTypes(schemaDir: string): Promise<string> {
  const dir = join(schemaDir, 'console');
  // Core's and the features' (core/config/schema-files.ts), each referred to by its path from core's folder.
  const paths = new Map<string, string>();
  for (const folder of schemaFolders('console', join(schemaDir, '..'))) {
    for (const f of await readdir(folder)) if (f.endsWith('.response.schema.json')) paths.set(f, relative(dir, join(folder, f)).split(sep).join('/'));
  }
  const files = [...paths.keys()].sort();
  const root: JSONSchema = {
    title: 'ConsoleApi',
    description: 'Each console API route\'s answer, by its schema\'s name.',
    type: 'object',
    additionalProperties: false,
    required: files.map((f) => f.slice(0, -'.response.schema.json'.length)),
    properties: Object.fromEntries(files.map((f) => [f.slice(0, -'.response.schema.json'.length), { $ref: paths.get(f) }])),
  };
  // maxItems: -1: a list with a maximum is a list, not a union of tuples of every length.
  return compile(root, 'ConsoleApi', { bannerComment: BANNER, cwd: dir, unknownAny: true, strictIndexSignatures: true, additionalProperties: false, maxItems: -1 });
}

export async function renderFromRepo(): Promise<{ readonly path: string; readonly text: string }> {
  const schemaDir = findSchemaDir();
  return { path: join(schemaDir, '..', 'console', 'src', 'api-types.gen.ts'), text: await renderConsoleTypes(schemaDir) };
}

if (isMainScript(import.meta.url)) {
  process.exitCode = await writeOrCheck(process.argv.slice(2), await renderFromRepo(), 'schemas/console/');
}
