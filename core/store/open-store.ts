// Turns the configured store URL into a migrated, ready Store (the schemes themselves: store-url.ts).
import { createSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';
import type { StorePart } from './store-part.js';
import { isPostgresUrl, parseSqliteUrl, storeUrlScheme, SUPPORTED_STORE_URLS } from './store-url.js';

export interface OpenStoreOptions {
  /** PostgreSQL: the most connections the pool opens (default 10). */
  readonly poolMax?: number;
}

/**
 * Opens the store named by `url` with the features' parts (every feature the database was ever migrated with: a
 * history missing one's migrations is refused) and applies pending migrations before handing it out.
 */
export async function openStore(url: string, parts: readonly StorePart<unknown>[], options: OpenStoreOptions = {}): Promise<Store> {
  const store = await createStore(url, parts, options);
  try {
    await store.migrate();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

async function createStore(url: string, parts: readonly StorePart<unknown>[], options: OpenStoreOptions): Promise<Store> {
  // Loaded only for a PostgreSQL URL: the embedded default never pays for loading its driver (docs/performance.md).
  if (isPostgresUrl(url)) return (await import('./postgres-store.js')).createPostgresStore(url, options.poolMax ?? 10, parts);
  const filename = parseSqliteUrl(url);
  // Only the scheme is echoed: a database URL may carry a password.
  if (filename === undefined) throw new Error(`unsupported store URL scheme ${storeUrlScheme(url)}; supported: ${SUPPORTED_STORE_URLS}`);
  return createSqliteStore(filename, parts);
}
