// The asset library's migrations: named into core's one history (their names keep the order they were applied in before the features
// owned them; Kysely refuses a history whose names changed).

import type { Kysely, Migration } from 'kysely';
import type { StoreDialect } from '../../core/store/migrations.js';

export function assetMigrations(_dialect: StoreDialect): Record<string, Migration> {
  return {
    '0012_assets': {
      // The asset library's ownership (which key owns a group, which group an asset is in) and the mock's library.
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('asset_groups')
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('account', 'text')
          .addColumn('bound', 'integer', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        // A key's list pages its groups newest first; a revocation unbinds them all; the console lists an account's.
        await db.schema.createIndex('asset_groups_key_idx').ifNotExists().on('asset_groups').columns(['key_id', 'created_at', 'id']).execute();
        await db.schema.createIndex('asset_groups_account_idx').ifNotExists().on('asset_groups').columns(['account', 'created_at']).execute();
        await db.schema
          .createTable('assets')
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('group_id', 'text', (c) => c.notNull())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('asset_type', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('assets_group_idx').ifNotExists().on('assets').columns(['group_id', 'created_at']).execute();
        await db.schema
          .createTable('mock_asset_records')
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('group_id', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('record', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('mock_asset_records_idx').ifNotExists().on('mock_asset_records').columns(['channel', 'kind', 'group_id', 'created_at']).execute();
      },
    },
    '0015_asset_group_slots': {
      // A CreateAssetGroup takes one of its key's slots before the library is asked, counted with the key's groups
      // under one lock, so parallel creates on any instance never pass the per-key cap, and a group the library made
      // but the store could not record stays counted.
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('asset_group_slots')
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('account', 'text')
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('asset_group_slots_key_idx').ifNotExists().on('asset_group_slots').columns(['key_id', 'account']).execute();
      },
    },
  };
}
