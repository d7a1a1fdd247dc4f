// Turns the configured store URL into a migrated, ready Store; the one place that knows the URL schemes.
import { resolve } from 'node:path';
import { createSqliteStore, SQLITE_MEMORY } from './sqlite-store.js';
import type { Store } from './store.js';

const SUPPORTED = 'sqlite:<path> (relative to the working directory or absolute), sqlite::memory:';

/** Resolves `sqlite:./data/gateway.db`, `sqlite:/abs/path.db` or `sqlite::memory:` to a better-sqlite3 filename. */
export function parseSqliteUrl(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  const rest = url.slice('sqlite:'.length);
  if (rest === SQLITE_MEMORY) return SQLITE_MEMORY;
  if (rest === '') throw new Error(`store URL "sqlite:" has no path; supported: ${SUPPORTED}`);
  return resolve(rest);
}

/** Opens the store named by `url` and applies pending migrations before handing it out. */
export async function openStore(url: string): Promise<Store> {
  const filename = parseSqliteUrl(url);
  if (filename === undefined) {
    // Only the scheme is echoed: a database URL may carry a password.
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? '(none)';
    throw new Error(`unsupported store URL scheme ${scheme}; supported: ${SUPPORTED} (postgres: is planned)`);
  }
  const store = createSqliteStore(filename);
  try {
    await store.migrate();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
