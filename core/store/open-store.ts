// Turns the configured store URL into a migrated, ready Store (the schemes themselves: store-url.ts).
import { createSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';
import { parseSqliteUrl, storeUrlScheme, SUPPORTED_STORE_URLS } from './store-url.js';

/** Opens the store named by `url` and applies pending migrations before handing it out. */
export async function openStore(url: string): Promise<Store> {
  const filename = parseSqliteUrl(url);
  if (filename === undefined) {
    // Only the scheme is echoed: a database URL may carry a password.
    throw new Error(`unsupported store URL scheme ${storeUrlScheme(url)}; supported: ${SUPPORTED_STORE_URLS} (postgres: is planned)`);
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
