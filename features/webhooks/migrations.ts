// The webhooks feature's migrations, named into core's one history.

import { sql, type Kysely, type Migration } from 'kysely';
import type { StoreDialect } from '../../core/store/migrations.js';

export function webhookMigrations(_dialect: StoreDialect): Record<string, Migration> {
  return {
    '0022_webhook_events': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('webhook_events')
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('hook', 'text', (c) => c.notNull())
          .addColumn('event_key', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('body', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull())
          .addColumn('lease_owner', 'text')
          .addColumn('lease_until', 'bigint')
          .addColumn('delivered_at', 'bigint')
          .addColumn('failed_at', 'bigint')
          .addColumn('last_error', 'text')
          .execute();
        // Once per fleet: the second instance to see an occurrence finds it kept (its insert does nothing).
        await db.schema.createIndex('webhook_events_once_idx').ifNotExists().unique().on('webhook_events').columns(['hook', 'event_key']).execute();
        // The scan finds an account's last credit (what names its balance_low occurrence) among its credits alone.
        await sql`create index if not exists ledger_credits_idx on ledger (account, id) where amount > 0`.execute(db);
        // The sender looks for the undelivered events that are due.
        await db.schema.createIndex('webhook_events_due_idx').ifNotExists().on('webhook_events').columns(['delivered_at', 'failed_at', 'next_attempt_at']).execute();
      },
    },
  };
}
