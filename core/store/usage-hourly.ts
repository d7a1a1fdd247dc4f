// The hourly aggregate of usage, what dashboards and charts read instead of the records (millions of rows): one row
// per hour, account, key, model and channel, added to in the same transaction as the records it counts. Only records
// that were inserted count (a batch retried after a lost commit finds its records there and adds nothing again).

import type { UsageRecord } from './store.js';

const HOUR_MS = 3_600_000;

/** One aggregate row's key and the sums a batch adds to it. */
export interface HourlyRow {
  readonly hour: number;
  /** '' for an unmetered key. */
  readonly account: string;
  readonly key_id: string;
  readonly model: string;
  /** '' when no channel was reached. */
  readonly channel: string;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  images: number;
  cost: bigint;
  latency_ms: number;
}

/** The columns of an aggregate row, in a fixed order (the prepared statements' and the upsert's). */
export const HOURLY_COLUMNS = [
  'hour',
  'account',
  'key_id',
  'model',
  'channel',
  'requests',
  'errors',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'images',
  'cost',
  'latency_ms',
] as const;

/** The columns added to on a conflict (all but the key). */
export const HOURLY_SUMS = HOURLY_COLUMNS.slice(5);

/**
 * The records whose request id was inserted now, each once: a batch may hold a request id twice, and the row that
 * went in is the first in insertion order, priced records before the others (as the stores insert them).
 */
export function insertedOnce(records: readonly UsageRecord[], written: ReadonlySet<string>): UsageRecord[] {
  const left = new Set(written);
  const priced = records.filter((r) => r.cost !== undefined && left.delete(r.requestId));
  return priced.concat(records.filter((r) => r.cost === undefined && left.delete(r.requestId)));
}

/**
 * The aggregate rows `records` add, sorted by their key: several instances upserting the same rows take their locks
 * in one order (no deadlock on PostgreSQL).
 */
export function hourlyRows(records: readonly UsageRecord[]): HourlyRow[] {
  const rows = new Map<string, HourlyRow>();
  for (const r of records) {
    const hour = Math.floor(r.ts / HOUR_MS) * HOUR_MS;
    const account = r.account ?? '';
    const channel = r.channel ?? '';
    const id = `${hour}\u0000${account}\u0000${r.keyId}\u0000${r.model}\u0000${channel}`;
    let row = rows.get(id);
    if (row === undefined) {
      row = {
        hour,
        account,
        key_id: r.keyId,
        model: r.model,
        channel,
        requests: 0,
        errors: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        cached_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
        images: 0,
        cost: 0n,
        latency_ms: 0,
      };
      rows.set(id, row);
    }
    row.requests++;
    if (r.status >= 400) row.errors++;
    row.prompt_tokens += r.promptTokens;
    row.completion_tokens += r.completionTokens;
    row.cached_tokens += r.cachedTokens;
    row.cache_write_tokens += r.cacheWriteTokens;
    row.reasoning_tokens += r.reasoningTokens;
    row.images += r.images ?? 0;
    row.cost += r.cost ?? 0n;
    // As the record stores it: whole milliseconds (a timing may be fractional).
    row.latency_ms += Math.round(r.latencyMs);
  }
  return [...rows.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, row]) => row);
}

/** SQLite's prepared `INSERT ... ON CONFLICT DO UPDATE` adding `rows` rows of sums (the Kysely path builds its own). */
export function hourlyUpsertSql(rows: number): string {
  const tuple = `(${HOURLY_COLUMNS.map(() => '?').join(',')})`;
  return (
    `INSERT INTO usage_hourly (${HOURLY_COLUMNS.join(',')}) VALUES ${Array.from({ length: rows }, () => tuple).join(',')} ` +
    `ON CONFLICT (hour, account, key_id, model, channel) DO UPDATE SET ${HOURLY_SUMS.map((c) => `${c} = usage_hourly.${c} + excluded.${c}`).join(', ')}`
  );
}
