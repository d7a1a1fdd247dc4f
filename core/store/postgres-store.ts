// Opens a PostgreSQL database as a Store: node-postgres's pool under Kysely. Several gateway instances may share one
// database: everything they must agree on (keys, usage, accounts, ledger, holds) lives there.

import { Kysely, type PostgresCursor, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import { CurrentSchemaPostgresDialect } from './postgres-introspector.js';
import pg from 'pg';
import { KyselyStore } from './kysely-store.js';
import type { StorePart } from './store-part.js';
import { isConnectionFailure, StoreUnreachableError } from './store-unreachable.js';
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

/** A connection failure of the driver's as a StoreUnreachableError (a 503 to the caller); any other error as it is. */
function marked(err: unknown): unknown {
  return isConnectionFailure(err) ? new StoreUnreachableError(err) : err;
}

/**
 * The pool as Kysely uses it, with the driver's connection failures marked as the store's own (store-unreachable.ts):
 * only errors that came out of node-postgres are judged by their code.
 */
function markedPool(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw marked(err);
      }
      const query = <R>(sql: string | PostgresCursor<R>, parameters: readonly unknown[] = []): Promise<PostgresQueryResult<R>> => {
        // Kysely asks for a cursor only when the dialect is given one (streamed queries); this store never is.
        if (typeof sql !== 'string') return Promise.reject(new Error('the store runs no cursor queries'));
        return client.query(sql, [...parameters]).then(
          (result) => result as unknown as PostgresQueryResult<R>,
          (err: unknown) => Promise.reject(marked(err)),
        );
      };
      // One function for both of the interface's overloads: the cursor one is never called (above).
      return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() };
    },
    end: () => pool.end(),
  };
}

/** Opens a pool of at most `poolMax` connections (none until the first query); openStore() migrates. */
export function createPostgresStore(url: string, poolMax: number, parts: readonly StorePart<unknown>[]): Store {
  return new KyselyStore(new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool: markedPool(postgresPool(url, poolMax)) }) }), 'postgres', parts);
}
