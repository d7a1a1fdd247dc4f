// The top-up codes' migrations, named into core's one history (0024: after every migration main had when they were merged;
// a name that sorts before one a store already ran is refused by Kysely).

import type { Kysely, Migration } from 'kysely';
import type { StoreDialect } from '../../core/store/migrations.js';

export function topupMigrations(_dialect: StoreDialect): Record<string, Migration> {
  return {
    '0024_topup_codes': {
      async up(db: Kysely<unknown>): Promise<void> {
        await db.schema
          .createTable('topup_batches')
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('amount', 'bigint', (c) => c.notNull())
          .addColumn('count', 'integer', (c) => c.notNull())
          .addColumn('note', 'text')
          .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint')
          .addColumn('disabled_at', 'bigint')
          .execute();
        await db.schema
          .createTable('topup_codes')
          .ifNotExists()
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('batch_id', 'text', (c) => c.notNull())
          // Unique: a redemption finds its code by the digest, and two codes can never share one.
          .addColumn('hash', 'text', (c) => c.notNull().unique())
          .addColumn('last4', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('disabled_at', 'bigint')
          .addColumn('redeemed_at', 'bigint')
          .addColumn('redeemed_by', 'text')
          .addColumn('redeemed_account', 'text')
          .addColumn('ledger_entry_id', 'bigint')
          .execute();
        // The operator lists a batch's codes, and the codes redeemed into an account, newest first.
        await db.schema.createIndex('topup_codes_batch_idx').ifNotExists().on('topup_codes').columns(['batch_id', 'created_at']).execute();
        await db.schema.createIndex('topup_codes_account_idx').ifNotExists().on('topup_codes').columns(['redeemed_account', 'redeemed_at']).execute();
      },
    },
  };
}
