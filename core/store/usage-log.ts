// The usage log as the console reads it: records filtered by time, account, key, model, status, route or request id,
// newest first, a page at a time by keyset (a page after (ts, id), never OFFSET: the millionth row costs what the
// first does), and the totals of everything the filter matches. Shared by both dialects.

import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { decodeInteger, decodeMoney, decodeUsageRow } from './row-codec.js';
import type { Database } from './schema.js';
import type { UsageRecord } from './store.js';

/** `ok`: answered below 400; `error`: 400 and above; a number: that status. */
export type StatusFilter = 'ok' | 'error' | number;

export interface UsageFilter {
  /** Epoch ms, inclusive. */
  readonly from: number;
  /** Epoch ms, exclusive. */
  readonly to: number;
  readonly account?: string;
  readonly keyId?: string;
  readonly model?: string;
  /** Models whose name starts with this (the console's model filter: "gpt-4o" finds gpt-4o-mini too). */
  readonly modelPrefix?: string;
  readonly status?: StatusFilter;
  readonly route?: string;
  readonly requestId?: string;
}

/** Where a page ends: the next page holds the records older than this one. */
export interface UsageCursor {
  readonly ts: number;
  readonly id: number;
}

export interface UsageLogQuery extends UsageFilter {
  readonly before?: UsageCursor;
  readonly limit: number;
}

export interface UsageLogRow {
  readonly id: number;
  readonly record: UsageRecord;
}

export interface UsageTotals {
  readonly requests: number;
  readonly errors: number;
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly cacheWriteTokens: number;
  readonly completionTokens: number;
  readonly reasoningTokens: number;
  readonly images: number;
  /** Nano-units. */
  readonly cost: bigint;
}

type UsageSelect = SelectQueryBuilder<Database, 'usage_records', object>;

/**
 * `model` starts with `prefix`, compared exactly: substr counts characters in both dialects, where LIKE would fold
 * case on SQLite and not on PostgreSQL, and would need its own escaping of % and _.
 */
function startsWith(prefix: string) {
  return sql<boolean>`substr(model, 1, ${[...prefix].length}) = ${prefix}`;
}

function filtered(db: Kysely<Database>, filter: UsageFilter): UsageSelect {
  let q: UsageSelect = db.selectFrom('usage_records').where('ts', '>=', filter.from).where('ts', '<', filter.to);
  if (filter.account !== undefined) q = q.where('account', '=', filter.account);
  if (filter.keyId !== undefined) q = q.where('key_id', '=', filter.keyId);
  if (filter.model !== undefined) q = q.where('model', '=', filter.model);
  if (filter.modelPrefix !== undefined) q = q.where(startsWith(filter.modelPrefix));
  if (filter.route !== undefined) q = q.where('route', '=', filter.route);
  if (filter.requestId !== undefined) q = q.where('request_id', '=', filter.requestId);
  const status = filter.status;
  if (status === 'ok') q = q.where('status', '<', 400);
  else if (status === 'error') q = q.where('status', '>=', 400);
  else if (status !== undefined) q = q.where('status', '=', status);
  return q;
}

/** One page, newest first: the records older than `before` (or the newest), at most `limit`. */
export async function usageLog(db: Kysely<Database>, query: UsageLogQuery): Promise<UsageLogRow[]> {
  let q = filtered(db, query);
  const before = query.before;
  // `ts <= t` first: a range the (account|key, ts) indexes seek to; the OR only sorts out the cursor's own millisecond.
  if (before !== undefined) q = q.where('ts', '<=', before.ts).where((eb) => eb.or([eb('ts', '<', before.ts), eb('id', '<', before.id)]));
  const rows = await q.selectAll().orderBy('ts', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
  return rows.map((row) => ({ id: decodeInteger(row.id), record: decodeUsageRow(row) }));
}

const HOUR_MS = 3_600_000;

/**
 * The sums of every record the filter matches. A filter of time, account, key and model only (the dashboard's
 * dimensions) is summed from the hourly table for its whole hours and from the records for the parts of hours at
 * either end: a month of an account is then ~700 hourly rows per key and model, not its hundreds of thousands of
 * records (docs/performance.md). Status, route and request id are not in the hourly table: those sum the records.
 */
export async function usageTotals(db: Kysely<Database>, filter: UsageFilter): Promise<UsageTotals> {
  const firstHour = Math.ceil(filter.from / HOUR_MS) * HOUR_MS;
  const endHour = Math.floor(filter.to / HOUR_MS) * HOUR_MS;
  const hourly = filter.status === undefined && filter.route === undefined && filter.requestId === undefined;
  if (!hourly || firstHour >= endHour) return recordTotals(db, filter);
  const parts = await Promise.all([
    filter.from < firstHour ? recordTotals(db, Object.assign({}, filter, { to: firstHour })) : EMPTY,
    hourTotals(db, filter, firstHour, endHour),
    endHour < filter.to ? recordTotals(db, Object.assign({}, filter, { from: endHour })) : EMPTY,
  ]);
  return parts.reduce(addTotals);
}

const EMPTY: UsageTotals = { requests: 0, errors: 0, promptTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, completionTokens: 0, reasoningTokens: 0, images: 0, cost: 0n };

function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    requests: a.requests + b.requests,
    errors: a.errors + b.errors,
    promptTokens: a.promptTokens + b.promptTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    images: a.images + b.images,
    cost: a.cost + b.cost,
  };
}

/** The token columns both tables sum alike (the hourly table's are already sums of the records'). */
const SUMMED = ['prompt_tokens', 'cached_tokens', 'cache_write_tokens', 'completion_tokens', 'reasoning_tokens', 'images', 'cost'] as const;

type Loose = number | string | bigint | null;
type TotalsRow = Readonly<Record<'requests' | 'errors' | (typeof SUMMED)[number], Loose>>;

function decodeTotals(row: TotalsRow): UsageTotals {
  const n = (value: Loose): number => (value === null ? 0 : decodeInteger(value));
  return {
    requests: n(row.requests),
    errors: n(row.errors),
    promptTokens: n(row.prompt_tokens),
    cachedTokens: n(row.cached_tokens),
    cacheWriteTokens: n(row.cache_write_tokens),
    completionTokens: n(row.completion_tokens),
    reasoningTokens: n(row.reasoning_tokens),
    images: n(row.images),
    cost: row.cost === null ? 0n : decodeMoney(row.cost),
  };
}

/** The hourly table's sums for hours [from, to) (whole hours) of the filter's account, key and model. */
async function hourTotals(db: Kysely<Database>, filter: UsageFilter, from: number, to: number): Promise<UsageTotals> {
  let q = db.selectFrom('usage_hourly').where('hour', '>=', from).where('hour', '<', to);
  if (filter.account !== undefined) q = q.where('account', '=', filter.account);
  if (filter.keyId !== undefined) q = q.where('key_id', '=', filter.keyId);
  if (filter.model !== undefined) q = q.where('model', '=', filter.model);
  if (filter.modelPrefix !== undefined) q = q.where(startsWith(filter.modelPrefix));
  const row = await q
    .select((eb) => [eb.fn.sum<Loose>('requests').as('requests'), eb.fn.sum<Loose>('errors').as('errors'), ...SUMMED.map((c) => eb.fn.sum<Loose>(c).as(c))])
    .executeTakeFirstOrThrow();
  return decodeTotals(row);
}

/** The sums of the records themselves. */
async function recordTotals(db: Kysely<Database>, filter: UsageFilter): Promise<UsageTotals> {
  const row = await filtered(db, filter)
    .select((eb) => [
      eb.fn.countAll<number | string | bigint>().as('requests'),
      sql<Loose>`sum(case when status >= 400 then 1 else 0 end)`.as('errors'),
      ...SUMMED.map((c) => eb.fn.sum<Loose>(c).as(c)),
    ])
    .executeTakeFirstOrThrow();
  return decodeTotals(row);
}

/** When each key was last used (its newest record), by key id; a key never used is absent. One indexed probe each. */
export async function lastUsed(db: Kysely<Database>, keyIds: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const keyId of keyIds) {
    const row = await db.selectFrom('usage_records').select('ts').where('key_id', '=', keyId).orderBy('ts', 'desc').limit(1).executeTakeFirst();
    if (row !== undefined) found.set(keyId, decodeInteger(row.ts));
  }
  return found;
}
