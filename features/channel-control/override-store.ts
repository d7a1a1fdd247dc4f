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

/** One record's times the percentiles need. */
export interface TimedRow {
  readonly latencyMs: number;
  readonly ttftMs: number | null;
  readonly ts: number;
}

/** A channel's exact counts over the two windows. */
export interface HealthCounts {
  readonly m5: { readonly requests: number; readonly errors: number };
  readonly m60: { readonly requests: number; readonly errors: number };
}

/** The most records one channel's percentiles read (the newest): bounds the page's cost on a busy channel. */
export const PERCENTILE_SAMPLE = 10_000;

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

  /**
   * Exact counts since `since60` and `since5` (ms): one aggregate over the (channel, ts) index. An error is what
   * counts against the channel (health.ts isChannelError: no answer, 408, 429, 5xx), counted in SQL.
   */
  async healthCounts(channel: string, since60: number, since5: number): Promise<HealthCounts> {
    const row = await this.db
      .selectFrom('usage_records')
      .select((eb) => {
        const error = eb.or([eb('status', '=', 0), eb('status', '=', 408), eb('status', '=', 429), eb('status', '>=', 500)]);
        const recent = eb('ts', '>=', since5);
        return [
          eb.fn.countAll().as('n60'),
          eb.fn.sum(eb.case().when(recent).then(1).else(0).end()).as('n5'),
          eb.fn.sum(eb.case().when(error).then(1).else(0).end()).as('e60'),
          eb.fn.sum(eb.case().when(eb.and([error, recent])).then(1).else(0).end()).as('e5'),
        ];
      })
      .where('channel', '=', channel)
      .where('ts', '>=', since60)
      .executeTakeFirst();
    // SUM over no rows is NULL; PostgreSQL answers counts as text (bigint).
    const n = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
    return { m5: { requests: n(row?.n5), errors: n(row?.e5) }, m60: { requests: n(row?.n60), errors: n(row?.e60) } };
  }

  /** The channel's newest records since `since` (ms), at most PERCENTILE_SAMPLE, newest first (the (channel, ts) index). */
  async timedRows(channel: string, since: number): Promise<TimedRow[]> {
    const rows = await this.db
      .selectFrom('usage_records')
      .select(['latency_ms', 'ttft_ms', 'ts'])
      .where('channel', '=', channel)
      .where('ts', '>=', since)
      .orderBy('ts', 'desc')
      .limit(PERCENTILE_SAMPLE)
      .execute();
    return rows.map((r) => ({ latencyMs: Number(r.latency_ms), ttftMs: r.ttft_ms === null ? null : Number(r.ttft_ms), ts: Number(r.ts) }));
  }
}
