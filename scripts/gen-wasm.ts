// `npm run gen` (with gen-types.ts): compiles core/formats/json-string-end.wat with wabt into
// json-string-end.wasm.gen.ts (the module's bytes as base64, so it loads the same from src/ under tsx and from
// dist/, and nothing but tsc builds the gateway); `--check` fails when it is stale.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import wabtInit from 'wabt';
import { findSchemaDir } from '../core/config/schema-dir.js';
import { isMainScript, writeOrCheck } from './generated-file.js';

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

// Only act when run as a script, so tests can import the renderer.
if (isMainScript(import.meta.url)) {
  process.exitCode = await writeOrCheck(process.argv.slice(2), await renderFromRepo(), SOURCE);
}
