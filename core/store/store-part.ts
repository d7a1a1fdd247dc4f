// A feature's part of the store: its migrations, named into core's one history, and its access to its own tables,
// opened with the store over the same database (so its writes share transactions and dialect with core's).

import type { Kysely, Migration } from 'kysely';
import type { Slot } from '../slot.js';
import type { StoreDialect } from './migrations.js';
import type { Database } from './schema.js';

export interface StorePart<T> {
  /** Where the store keeps it: `store.part(slot)`. */
  readonly slot: Slot<T>;
  /** Its migrations by name; ordered with core's by name (a feature's first one chose its place in the history). */
  migrations(dialect: StoreDialect): Readonly<Record<string, Migration>>;
  /** Its store access over the store's database; its own tables are its business (`db.withTables<...>()`). */
  open(db: Kysely<Database>, dialect: StoreDialect): T;
  /** Runs in the transaction that revokes a key: what is bound to the key lets go in the same instant. */
  keyRevoked?(trx: Kysely<Database>, keyId: string, at: number): Promise<void>;
}
