// The channel-control feature's migration, named into core's one history. 0025, not the 0019 first planned: Kysely
// refuses a new migration named before one a store already ran (0020-0024 have landed), as top-up's 0024 found.

import type { Kysely, Migration } from 'kysely';
import type { StoreDialect } from '../../core/store/migrations.js';

export function channelControlMigrations(_dialect: StoreDialect): Record<string, Migration> {
  return {
    '0025_channel_overrides': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('channel_overrides')
          .ifNotExists()
          .addColumn('channel', 'text', (c) => c.primaryKey())
          .addColumn('disabled', 'integer', (c) => c.notNull())
          .addColumn('weight', 'double precision')
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_by', 'text', (c) => c.notNull())
          .execute();
        // The channels page's health reads one channel's last hour of records: bounded by this index, not a scan of
        // every record since ts (which is all channels' traffic). On PostgreSQL it blocks writes to usage_records while
        // built: docs/operations.md says how to build it beforehand CONCURRENTLY on a large store (then skipped here).
        await db.schema.createIndex('usage_records_channel_ts_idx').ifNotExists().on('usage_records').columns(['channel', 'ts']).execute();
      },
    },
  };
}
