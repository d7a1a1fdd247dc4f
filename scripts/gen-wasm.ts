// `npm run gen` (with gen-types.ts): compiles core/formats/json-string-end.wat with wabt into
// json-string-end.wasm.gen.ts (the module's bytes as base64, so it loads the same from src/ under tsx and from
// dist/, and nothing but tsc builds the gateway); `--check` fails when it is stale.

import { readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import wabtInit from 'wabt';
import { findSchemaDir } from '../core/config/schema-dir.js';

const SOURCE = join('core', 'formats', 'json-string-end.wat');
export const GENERATED_FILE = join('core', 'formats', 'json-string-end.wasm.gen.ts');

/** The generated module's text for a .wat source; throws wabt's error when the source does not compile. */
export async function renderWasmModule(wat: string): Promise<string> {
  const wabt = await wabtInit();
  const parsed = wabt.parseWat(SOURCE, wat, { simd: true });
  try {
    parsed.validate();
    const { buffer } = parsed.toBinary({});
    const base64 = Buffer.from(buffer).toString('base64');
    return [
      `// Generated from ${SOURCE.split('\\').join('/')} by \`npm run gen\`; do not edit. Change the .wat and regenerate.`,
      '',
      `export const JSON_STRING_END_WASM = '${base64}';`,
      '',
    ].join('\n');
  } finally {
    parsed.destroy();
  }
}

/** Reads the .wat and returns what the generated file should contain and where it goes. */
export async function renderFromRepo(): Promise<{ readonly path: string; readonly text: string }> {
  const root = join(findSchemaDir(), '..');
  return { path: join(root, GENERATED_FILE), text: await renderWasmModule(await readFile(join(root, SOURCE), 'utf8')) };
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
  console.error(`${shown} is out of date with ${SOURCE}; run \`npm run gen\` and commit the result.`);
  return 1;
}

// Only act when run as a script, so tests can import the renderer.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
