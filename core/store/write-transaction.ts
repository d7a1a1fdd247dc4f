// A transaction that writes. On SQLite it begins IMMEDIATE: a deferred transaction that reads and then writes must
// upgrade its lock, and when another connection (the CLI beside the server) holds the write lock meanwhile SQLite
// fails it at once with SQLITE_BUSY instead of waiting (busy_timeout does not apply to an upgrade); taking the
// write lock first makes the second connection wait its turn. PostgreSQL's transactions wait on row locks anyway.

import { sql, type Kysely } from 'kysely';
import type { StoreDialect } from './migrations.js';
import type { Database } from './schema.js';

/** Over core's tables, or core's and a feature's (`Kysely<Database & ItsTables>`). */
export async function writeTransaction<T, DB extends Database = Database>(db: Kysely<DB>, dialect: StoreDialect, body: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  if (dialect === 'postgres') return db.transaction().execute(body);
  return sqliteTransaction(db, 'immediate', body);
}

/** A SQLite transaction on the store's one connection, begun as `mode` says (read-snapshot.ts takes a deferred one). */
export function sqliteTransaction<T, DB extends Database = Database>(db: Kysely<DB>, mode: 'immediate' | 'deferred', body: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await (mode === 'immediate' ? sql`begin immediate` : sql`begin deferred`).execute(conn);
    try {
      const result = await body(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (err) {
      await sql`rollback`.execute(conn);
      throw err;
    }
  });
}
