// `npm run gen`: writes core/config/gateway.gen.ts from the config schema; `--check` fails when it is stale.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { findSchemaDir } from '../core/config/schema-dir.js';
import { isMainScript, writeOrCheck } from './generated-file.js';

const BANNER =
  '// Generated from schemas/gateway.schema.json by `npm run gen`; do not edit. Change the schema and regenerate.';

/** Where the generated file lives, relative to the repo root (the parent of schemas/). */
export const GENERATED_FILE = join('core', 'config', 'gateway.gen.ts');

/** Renders the TypeScript types for a config schema; pure apart from prettier, so the output is stable. */
export async function renderGatewayTypes(schema: JSONSchema, schemaDir: string): Promise<string> {
  return compile(schema, 'GatewayConfig', {
    bannerComment: BANNER,
    cwd: schemaDir,
    unknownAny: true,
    strictIndexSignatures: true,
  });
}

/** Reads schemas/gateway.schema.json and returns what gateway.gen.ts should contain and where it goes. */
export async function renderFromRepo(): Promise<{ readonly path: string; readonly text: string }> {
  const schemaDir = findSchemaDir();
  const schema = JSON.parse(await readFile(join(schemaDir, 'gateway.schema.json'), 'utf8')) as JSONSchema;
  return { path: join(schemaDir, '..', GENERATED_FILE), text: await renderGatewayTypes(schema, schemaDir) };
}

// Only act when run as a script, so tests can import the renderer.
if (isMainScript(import.meta.url)) {
  process.exitCode = await writeOrCheck(process.argv.slice(2), await renderFromRepo(), 'schemas/gateway.schema.json');
}
