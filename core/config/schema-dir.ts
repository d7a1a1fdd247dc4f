// Finds the repo's schemas/ folder, whether running from source (tsx) or compiled into dist/.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Walks up from `from` (a file URL or path; default: this module) to the first directory holding
 * `schemas/gateway.schema.json` and returns that `schemas` directory's absolute path.
 */
export function findSchemaDir(from: string | URL = import.meta.url): string {
  const start = from instanceof URL || from.startsWith('file:') ? fileURLToPath(from) : from;
  let dir = dirname(start);
  for (;;) {
    const candidate = join(dir, 'schemas');
    if (existsSync(join(candidate, 'gateway.schema.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`schemas/gateway.schema.json not found above ${start}`);
    dir = parent;
  }
}

/** The repo's root: the folder holding schemas/ (the package's own files, source or built). */
export function findPackageRoot(from: string | URL = import.meta.url): string {
  return dirname(findSchemaDir(from));
}
