// The channel-control feature's part of the store: the overrides table, and the read of core's usage records its
// health figures make.

import type { StorePart } from '../../core/store/store-part.js';
import { slot, type Slot } from '../../core/slot.js';
import { channelControlMigrations } from './migrations.js';
import { OverrideStore } from './override-store.js';
import type { ChannelControlTables } from './tables.js';

export const CHANNEL_CONTROL_STORE: Slot<OverrideStore> = slot('channel overrides');

export const channelControlStorePart: StorePart<OverrideStore> = {
  slot: CHANNEL_CONTROL_STORE,
  migrations: channelControlMigrations,
  open: (db) => new OverrideStore(db.withTables<ChannelControlTables>()),
};
