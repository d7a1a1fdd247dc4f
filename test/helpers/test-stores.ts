// The store backends a store test runs against: SQLite always, PostgreSQL when GATEWAY_TEST_POSTGRES_URL names a
// server (.ci/run sets it). Each opened store is a fresh database of its own (a temp file; a schema of its own on
// the server), dropped when the test is done.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore } from '../../core/store/open-store.js';
import type { Store } from '../../core/store/store.js';
import { STORE_PARTS } from '../../features/index.js';

export interface OpenedStore {
  readonly store: Store;
  /** The store's URL, for a gateway process of the test's own (`store.url`). */
  readonly url: string;
  /** Closes the store and drops its database. */
  cleanup(): Promise<void>;
}

export interface StoreBackend {
  readonly name: 'sqlite' | 'postgres';
  /** Why this backend is skipped here (printed by the test runner), or undefined when it runs. */
  readonly skip: string | undefined;
  /** A new, empty, migrated store. */
  open(): Promise<OpenedStore>;
  /** A new, empty database's URL, not opened (for gateway processes that open it themselves), and its cleanup. */
  fresh(): Promise<{ readonly url: string; cleanup(): Promise<void> }>;
}

export const POSTGRES_URL_ENV = 'GATEWAY_TEST_POSTGRES_URL';

let schemas = 0;

const sqlite: StoreBackend = {
  name: 'sqlite',
  skip: undefined,
  async fresh() {
    const dir = await mkdtemp(join(tmpdir(), 'gw-store-'));
    return { url: `sqlite:${join(dir, 'gateway.db')}`, cleanup: () => rm(dir, { recursive: true, force: true }) };
  },
  async open() {
    return openFresh(await this.fresh());
  },
};

function postgres(base: string | undefined): StoreBackend {
  return {
    name: 'postgres',
    skip: base === undefined ? `${POSTGRES_URL_ENV} is not set (no PostgreSQL server to test against; .ci/run sets it)` : undefined,
    async fresh() {
      if (base === undefined) throw new Error(`${POSTGRES_URL_ENV} is not set`);
      // A schema of its own, named for this process and test, found through the connection's search_path.
      const schema = `gw_test_${process.pid}_${++schemas}_${Math.random().toString(36).slice(2, 8)}`;
      await withClient(base, (client) => client.query(`CREATE SCHEMA ${schema}`));
      const url = new URL(base);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return { url: url.href, cleanup: () => withClient(base, async (client) => void (await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))) };
    },
    async open() {
      return openFresh(await this.fresh());
    },
  };
}

async function openFresh(db: { readonly url: string; cleanup(): Promise<void> }): Promise<OpenedStore> {
  let store: Store;
  try {
    store = await openStore(db.url, STORE_PARTS, { poolMax: 4 });
  } catch (err) {
    await db.cleanup();
    throw err;
  }
  return {
    store,
    url: db.url,
    async cleanup() {
      try {
        await store.close();
      } finally {
        await db.cleanup();
      }
    },
  };
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Another store over an existing database (a second instance's), migrated; the caller closes it. */
export function openStoreAt(url: string, poolMax = 4): Promise<Store> {
  return openStore(url, STORE_PARTS, { poolMax });
}

/** Both backends; PostgreSQL's `skip` says why when it cannot run here. */
export function storeBackends(): readonly StoreBackend[] {
  return [sqlite, postgres(process.env[POSTGRES_URL_ENV])];
}
