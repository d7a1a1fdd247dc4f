// The webhooks feature's table (migrations.ts makes it): the outbox, one row per event and hook from the moment it
// is kept until it was delivered (or given up on).

import type { ColumnType } from 'kysely';
import type { EpochMsColumn } from '../../core/store/schema.js';

type NullableMs = ColumnType<number | string | bigint | null, number | null | undefined, number | null>;

export interface WebhookEventsTable {
  /** The event's id (`evt_...`): the body's `id` and the webhook-id header, the same on every attempt. */
  id: string;
  /** The hook it is for: a digest of its URL (hook-id.ts), so every instance and every restart names it alike. */
  hook: string;
  /** What makes the occurrence one (GatewayEvent.key); unique per hook: kept, and sent, once per fleet. */
  event_key: string;
  type: string;
  /** The JSON body as first made: every attempt sends these very bytes. */
  body: string;
  created_at: EpochMsColumn;
  next_attempt_at: EpochMsColumn;
  attempts: ColumnType<number | string | bigint, number, number>;
  /** The instance sending it now, and until when (a lease: one that died lets go of it when it runs out). */
  lease_owner: string | null;
  lease_until: NullableMs;
  delivered_at: NullableMs;
  /** Given up on after the last attempt (webhooks' max attempts), or its hook left the config. */
  failed_at: NullableMs;
  /** The last attempt's failure: a status or a transport error, never the receiver's body. */
  last_error: string | null;
}

export type WebhookTables = {
  webhook_events: WebhookEventsTable;
};
