// `npm run gen`: writes core/config/gateway.gen.ts from the config schema; `--check` fails when it is stale.

import { readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { findSchemaDir } from '../core/config/schema-dir.js';

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

async function main(argv: readonly string[]): Promise<number> {
  const { path, text } = await renderFromRepo();
  const shown = relative(process.cwd(), path);
  if (!argv.includes('--check')) {
    await writeFile(path, text);
    console.log(`wrote ${shown}`);
    return 0;
  }
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current === text) return 0;
  console.error(`${shown} is out of date with schemas/gateway.schema.json; run \`npm run gen\` and commit the result.`);
  return 1;
}

// Only act when run as a script, so tests can import the renderer.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}

