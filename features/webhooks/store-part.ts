// The webhooks feature's part of the store: the outbox table (its migration and queries) and the reads of core's
// tables its scan makes, opened with the store.

import type { StorePart } from '../../core/store/store-part.js';
import { slot, type Slot } from '../../core/slot.js';
import { webhookMigrations } from './migrations.js';
import { OutboxStore } from './outbox-store.js';
import type { WebhookTables } from './tables.js';
import { WatchedFacts } from './watched-facts.js';

export interface WebhookStore {
  readonly outbox: OutboxStore;
  readonly facts: WatchedFacts;
}

export const WEBHOOK_STORE: Slot<WebhookStore> = slot('webhook store');

export const webhookStorePart: StorePart<WebhookStore> = {
  slot: WEBHOOK_STORE,
  migrations: webhookMigrations,
  open: (db, dialect) => ({ outbox: new OutboxStore(db.withTables<WebhookTables>(), dialect), facts: new WatchedFacts(db) }),
};
