// The asset library's part of the store: its tables' migrations and its queries, opened with the store; a revoked
// key's groups are unbound in the revocation's own transaction.

import type { StorePart } from '../../core/store/store-part.js';
import { slot, type Slot } from '../../core/slot.js';
import type { AssetStore } from './asset-store.js';
import { KyselyAssets } from './kysely-assets.js';
import { assetMigrations } from './migrations.js';
import type { AssetTables } from './tables.js';

export const ASSET_STORE: Slot<AssetStore> = slot('asset store');

export const assetStorePart: StorePart<AssetStore> = {
  slot: ASSET_STORE,
  migrations: assetMigrations,
  open: (db, dialect) => new KyselyAssets(db.withTables<AssetTables>(), dialect),
  keyRevoked: async (trx, keyId, at) => {
    await trx.withTables<AssetTables>().updateTable('asset_groups').set({ bound: 0, updated_at: at }).where('key_id', '=', keyId).where('bound', '=', 1).execute();
  },
};
