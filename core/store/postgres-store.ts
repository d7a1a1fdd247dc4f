// Opens a PostgreSQL database as a Store: node-postgres's pool under Kysely. Several gateway instances may share one
// database: everything they must agree on (keys, usage, accounts, ledger, holds) lives there.

import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { KyselyStore } from './kysely-store.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';

/**
 * The pool a PostgreSQL store runs on. A connection's socket error (the server restarted, the network cut) is an
 * 'error' event: on an idle connection the pool's, on one in use (a query or a transaction running) the client's own,
 * which pg leaves without a listener while the connection is checked out. Unheard, either would end the process;
 * the queries on it fail with the error anyway, and the pool drops the connection when it comes back.
 */
export function postgresPool(url: string, poolMax: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: poolMax });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Opens a pool of at most `poolMax` connections (none until the first query); openStore() migrates. */
export function createPostgresStore(url: string, poolMax: number): Store {
  return new KyselyStore(new Kysely<Database>({ dialect: new PostgresDialect({ pool: postgresPool(url, poolMax) }) }), 'postgres');
}
