// Opens a SQLite database file as a Store: better-sqlite3 under Kysely, tuned for one writer and many readers.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { KyselyStore } from './kysely-store.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';

/** better-sqlite3's name for a private in-memory database. */
export const SQLITE_MEMORY = ':memory:';

/**
 * WAL lets readers run while the usage writer commits; NORMAL sync is durable across process crashes in WAL
 * mode (only an OS crash can lose the last commits); busy_timeout rides out a second process holding the lock.
 */
const PRAGMAS = ['journal_mode = WAL', 'synchronous = NORMAL', 'busy_timeout = 5000', 'foreign_keys = ON'];

/** Opens (creating the file and its parent directory) without migrating; openStore() migrates. */
export function createSqliteStore(filename: string): Store {
  if (filename !== SQLITE_MEMORY) mkdirSync(dirname(filename), { recursive: true });
  const database = new BetterSqlite3(filename);
  try {
    for (const pragma of PRAGMAS) database.pragma(pragma);
  } catch (err) {
    database.close();
    throw err;
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return new KyselyStore(db, 'sqlite');
}
