// Opens a PostgreSQL database as a Store: node-postgres's pool under Kysely. Several gateway instances may share one
// database: everything they must agree on (keys, usage, accounts, ledger, holds) lives there.

import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { KyselyStore } from './kysely-store.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';

/** Opens a pool of at most `poolMax` connections (none until the first query); openStore() migrates. */
export function createPostgresStore(url: string, poolMax: number): Store {
  const pool = new pg.Pool({ connectionString: url, max: poolMax });
  // An idle connection the server drops (restart, network) is an error event on the pool; without a listener it
  // would end the process. The next query opens a new connection.
  pool.on('error', () => undefined);
  return new KyselyStore(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), 'postgres');
}
