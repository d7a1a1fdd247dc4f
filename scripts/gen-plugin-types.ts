// `npm run gen`: writes plugins/<name>/options.gen.ts, the type of each plugin's `with:` block, from
// schemas/plugins/<name>.schema.json (as gen-types.ts does for the config); `--check` fails when one is stale.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { findSchemaDir } from '../core/config/schema-dir.js';
import { isMainScript, writeOrCheck } from './generated-file.js';

/** `rate-limit` -> `RateLimitOptions`. */
export function optionsTypeName(plugin: string): string {
  return `${plugin.replace(/(^|-)([a-z])/g, (_m, _dash: string, letter: string) => letter.toUpperCase())}Options`;
}

/** The options type of one plugin's schema; pure apart from prettier, so the output is stable. */
export async function renderPluginOptions(plugin: string, schema: JSONSchema, schemaDir: string): Promise<string> {
  const banner = `// Generated from schemas/plugins/${plugin}.schema.json by \`npm run gen\`; do not edit. Change the schema and regenerate.`;
  // The name comes from the plugin, not the schema's title, so every plugin's type is named alike.
  return compile({ ...schema, title: optionsTypeName(plugin) }, optionsTypeName(plugin), {
    bannerComment: banner,
    cwd: schemaDir,
    unknownAny: true,
    strictIndexSignatures: true,
  });
}

/** Every plugin schema's generated file: its path and text. */
export async function renderAllFromRepo(): Promise<{ readonly path: string; readonly text: string }[]> {
  const schemaDir = findSchemaDir();
  const files = (await readdir(join(schemaDir, 'plugins'))).filter((f) => f.endsWith('.schema.json')).sort();
  return Promise.all(
    files.map(async (file) => {
      const plugin = file.slice(0, -'.schema.json'.length);
      const schema = JSON.parse(await readFile(join(schemaDir, 'plugins', file), 'utf8')) as JSONSchema;
      return { path: join(schemaDir, '..', 'plugins', plugin, 'options.gen.ts'), text: await renderPluginOptions(plugin, schema, schemaDir) };
    }),
  );
}

if (isMainScript(import.meta.url)) {
  let code = 0;
  for (const generated of await renderAllFromRepo()) code = Math.max(code, await writeOrCheck(process.argv.slice(2), generated, 'schemas/plugins/'));
  process.exitCode = code;
}
