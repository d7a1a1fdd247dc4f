// The runtime dependency tree as a list: every package `npm ls --omit=dev --all` shows, by name and major version (a
// 0.x package by its minor too: there a minor is a breaking change). `--write` saves it as docs/runtime-dependencies.json;
// test/architecture/runtime-dependencies.test.ts compares the installed tree with that file, so that a package that
// appears, or changes major version, is seen in review (the registry's audit service cannot be reached from here).

import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { findPackageRoot } from '../core/config/schema-dir.js';

const run = promisify(execFile);
/** The repository, found from here whether this runs from its source or its build in dist/scripts. */
const ROOT = findPackageRoot(import.meta.url);
export const LIST_FILE = pathToFileURL(join(ROOT, 'docs', 'runtime-dependencies.json'));

interface Tree {
  readonly version?: string;
  readonly dependencies?: Readonly<Record<string, Tree>>;
}

function line(version: string): string {
  const [major, minor] = version.split('.');
  return major === '0' ? `0.${minor ?? '0'}` : (major ?? version);
}

/** `name@major` of every package of the installed runtime tree, sorted, each once. */
export async function installedRuntimeDependencies(): Promise<string[]> {
  const root = ROOT;
  // npm ls exits 1 on problems it also reports in the JSON (an extraneous package): the list is what counts.
  const { stdout } = await run('npm', ['ls', '--omit=dev', '--all', '--json'], { cwd: root, maxBuffer: 64 * 1024 * 1024 }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const found = new Set<string>();
  const walk = (tree: Tree): void => {
    for (const [name, dep] of Object.entries(tree.dependencies ?? {})) {
      if (dep.version !== undefined) found.add(`${name}@${line(dep.version)}`);
      walk(dep);
    }
  };
  walk(JSON.parse(stdout) as Tree);
  return [...found].sort();
}

export function committedRuntimeDependencies(): string[] {
  return JSON.parse(readFileSync(LIST_FILE, 'utf8')) as string[];
}

if (process.argv.includes('--write')) {
  const list = await installedRuntimeDependencies();
  writeFileSync(LIST_FILE, `${JSON.stringify(list, null, 1)}\n`);
  console.log(`wrote ${list.length} packages to docs/runtime-dependencies.json`);
}
