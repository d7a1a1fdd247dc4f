// Reads that must agree with one another (the audit's: balances, ledger, usage records, spend rows): one transaction
// that sees the database as it was at one moment, whatever commits meanwhile. On PostgreSQL a REPEATABLE READ,
// read-only transaction (its snapshot is taken at its first statement; READ COMMITTED would take one per statement).
// On SQLite a deferred transaction: in WAL mode its reads see the database as of its first read until it ends, and
// writers of other connections go on meanwhile; it holds this store's one connection, so this process's own queries
// wait for it.

import type { Kysely } from 'kysely';
import type { StoreDialect } from './migrations.js';
import type { Database } from './schema.js';
import { sqliteTransaction } from './write-transaction.js';

export async function readSnapshot<T, DB extends Database = Database>(db: Kysely<DB>, dialect: StoreDialect, body: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  if (dialect === 'postgres') return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(body);
  return sqliteTransaction(db, 'deferred', body);
}
