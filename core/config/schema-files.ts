// Where a request schema file lives: core's under schemas/<kind>/, a feature's under features/<name>/schemas/<kind>/
// (its own folder holds its schemas). A file's name is unique across them (it names its route or its API).

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { findPackageRoot } from './schema-dir.js';

export type SchemaKind = 'api' | 'console';

/** Core's folder of `kind`, then each feature's that has one, in name order. */
export function schemaFolders(kind: SchemaKind, root: string = findPackageRoot()): string[] {
  const features = join(root, 'features');
  const own = existsSync(features) ? readdirSync(features, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(features, e.name, 'schemas', kind)) : [];
  return [join(root, 'schemas', kind), ...own.sort().filter((dir) => existsSync(dir))];
}

/** The path of schema file `file` of `kind`; throws naming the folders looked in when none, or more than one, holds it. */
export function schemaFile(kind: SchemaKind, file: string, root?: string): string {
  const folders = schemaFolders(kind, root);
  const found = folders.map((dir) => join(dir, file)).filter((path) => existsSync(path));
  if (found.length === 0) throw new Error(`schema ${file} not found in ${folders.join(', ')}`);
  // One name, one schema: a second would be shadowed without a word.
  if (found.length > 1) throw new Error(`schema ${file} is in more than one folder: ${found.join(', ')}`);
  return found[0] as string;
}
