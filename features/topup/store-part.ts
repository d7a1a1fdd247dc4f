// The top-up feature's part of the store: its two tables, their migrations and queries, opened with the store (its
// redemptions post to core's ledger inside their own transactions).

import type { StorePart } from '../../core/store/store-part.js';
import { slot, type Slot } from '../../core/slot.js';
import { KyselyTopup } from './kysely-topup.js';
import { topupMigrations } from './migrations.js';
import type { TopupTables } from './tables.js';
import type { TopupStore } from './topup-store.js';

export const TOPUP_STORE: Slot<TopupStore> = slot('top-up codes');

export const topupStorePart: StorePart<TopupStore> = {
  slot: TOPUP_STORE,
  migrations: topupMigrations,
  open: (db, dialect) => new KyselyTopup(db.withTables<TopupTables>(), dialect),
};
