// What every `npm run gen` script does with its rendered file: write it, or with `--check` fail when the
// committed one differs (tests run the scripts with --check).

import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Writes `generated.text` to `generated.path`, or with `--check` returns 1 when the file there differs. */
export async function writeOrCheck(
  argv: readonly string[],
  generated: { readonly path: string; readonly text: string },
  source: string,
): Promise<number> {
  const shown = relative(process.cwd(), generated.path);
  if (!argv.includes('--check')) {
    await writeFile(generated.path, generated.text);
    console.log(`wrote ${shown}`);
    return 0;
  }
  const current = await readFile(generated.path, 'utf8').catch(() => null);
  if (current === generated.text) return 0;
  console.error(`${shown} is out of date with ${source}; run \`npm run gen\` and commit the result.`);
  return 1;
}

/** Whether `moduleUrl` is the script node was started with (so tests can import a generator's renderer). */
export function isMainScript(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && moduleUrl === pathToFileURL(process.argv[1]).href;
}
