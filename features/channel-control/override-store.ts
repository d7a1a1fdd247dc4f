// The overrides' queries, and the health figures read from core's usage records.

import type { Kysely } from 'kysely';
import type { ChannelOverride } from '../../core/routing/overrides.js';
import type { Database } from '../../core/store/schema.js';
import type { ChannelControlTables } from './tables.js';

export interface StoredOverride extends ChannelOverride {
  readonly channel: string;
  readonly updatedAt: number;
  readonly updatedBy: string;
}

/** One record's figures the health needs. */
export interface HealthRow {
  readonly status: number;
  readonly latencyMs: number;
  readonly ttftMs: number | null;
  readonly ts: number;
}

/** The most records one channel's health reads: a channel busier than this in an hour is judged by its newest. */
export const HEALTH_ROW_CAP = 50_000;

export class OverrideStore {
  constructor(private readonly db: Kysely<Database & ChannelControlTables>) {}

  async all(): Promise<StoredOverride[]> {
    const rows = await this.db.selectFrom('channel_overrides').selectAll().orderBy('channel').execute();
    return rows.map((r) => ({
      channel: r.channel,
      disabled: Number(r.disabled) === 1,
      weight: r.weight === null ? null : Number(r.weight),
      updatedAt: Number(r.updated_at),
      updatedBy: r.updated_by,
    }));
  }

  async put(o: StoredOverride): Promise<void> {
    const row = { disabled: o.disabled ? 1 : 0, weight: o.weight, updated_at: o.updatedAt, updated_by: o.updatedBy };
    await this.db
      .insertInto('channel_overrides')
      .values({ channel: o.channel, ...row })
      .onConflict((oc) => oc.column('channel').doUpdateSet(row))
      .execute();
  }

  /** true when there was an override to clear. */
  async clear(channel: string): Promise<boolean> {
    const res = await this.db.deleteFrom('channel_overrides').where('channel', '=', channel).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** The channel's records since `since` (ms), newest first, at most HEALTH_ROW_CAP (the (channel, ts) index). */
  async healthRows(channel: string, since: number): Promise<HealthRow[]> {
    const rows = await this.db
      .selectFrom('usage_records')
      .select(['status', 'latency_ms', 'ttft_ms', 'ts'])
      .where('channel', '=', channel)
      .where('ts', '>=', since)
      .orderBy('ts', 'desc')
      .limit(HEALTH_ROW_CAP)
      .execute();
    return rows.map((r) => ({ status: Number(r.status), latencyMs: Number(r.latency_ms), ttftMs: r.ttft_ms === null ? null : Number(r.ttft_ms), ts: Number(r.ts) }));
  }
}
