// The repository's root, and the test fixtures under it, wherever the test runs from: its source through tsx, or its
// build under dist/test (which `npm test` runs), where a path relative to the file would point into dist/.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findPackageRoot } from '../../core/config/schema-dir.js';

/** The folder holding package.json and schemas/, with no trailing slash. */
export const REPO_ROOT = findPackageRoot(import.meta.url);

/** A file under test/fixtures, by its path there. */
export function fixturePath(relative: string): string {
  return join(REPO_ROOT, 'test', 'fixtures', relative);
}

/** The same as a file URL (a trailing slash kept, for a folder to resolve names against). */
export function fixtureUrl(relative: string): URL {
  return pathToFileURL(fixturePath(relative) + (relative.endsWith('/') ? '/' : ''));
}
