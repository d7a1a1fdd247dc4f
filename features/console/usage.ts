// GET /console/api/usage: the usage log, filtered, newest first, a page at a time by keyset (next_cursor), with the
// totals of everything the filter matches; GET /console/api/usage.csv: every filtered record as CSV, read from the
// store a page at a time and streamed (never held whole). A user's filter always carries their account.

import { formatMoney } from '../../core/money/decimal.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import type { UsageRecord } from '../../core/store/store.js';
import type { StatusFilter, UsageCursor, UsageFilter, UsageLogRow, UsageTotals } from '../../core/store/usage-log.js';
import { csvField } from '../../core/console/csv-field.js';
import { DAY_MS, invalid, limitParam, timeParam } from '../../core/console/query-params.js';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;
/** Rows read per store query while streaming a CSV. */
const CSV_PAGE = 1000;
/**
 * The longest time range one query covers: a month. A filter the indexes do not narrow (a rare status or route) walks
 * the range's records, and on SQLite that holds the event loop; a month of one account stays well under 200 ms
 * (bench/README.md). The presets go up to 30 days; longer periods are the dashboard's (hourly sums).
 */
const MAX_RANGE_MS = 31 * DAY_MS;

function statusParam(text: string | null): StatusFilter | undefined {
  if (text === null || text === '' || text === 'all') return undefined;
  if (text === 'ok' || text === 'error') return text;
  if (/^[1-5][0-9]{2}$/.test(text)) return Number(text);
  throw invalid('status', 'status must be ok, error, or an HTTP status such as 429.');
}

/** The filter the query asks for, within `account` when one is imposed (a user's) or asked (the operator's). */
export function readFilter(query: URLSearchParams, account: string | null, now: number): UsageFilter {
  const to = timeParam(query, 'to', now);
  const from = timeParam(query, 'from', to - DAY_MS);
  if (from >= to || to - from > MAX_RANGE_MS) throw invalid('from', 'from must be before to, at most 31 days apart.');
  const filter: { -readonly [K in keyof UsageFilter]: UsageFilter[K] } = { from, to };
  if (account !== null) filter.account = account;
  const text = (name: string): string | undefined => {
    const value = query.get(name);
    if (value === null || value === '') return undefined;
    if (value.length > 256) throw invalid(name, `${name} is at most 256 characters.`);
    return value;
  };
  const keyId = text('key_id');
  if (keyId !== undefined) filter.keyId = keyId;
  // A prefix: "gpt-4o" finds gpt-4o-mini too, "claude" every Claude model.
  const model = text('model');
  if (model !== undefined) filter.modelPrefix = model;
  const route = text('route');
  if (route !== undefined) filter.route = route;
  const requestId = text('request_id');
  if (requestId !== undefined) filter.requestId = requestId;
  const status = statusParam(query.get('status'));
  if (status !== undefined) filter.status = status;
  return filter;
}

function readCursor(text: string | null): UsageCursor | undefined {
  if (text === null || text === '') return undefined;
  const match = /^([0-9]{1,15})-([0-9]{1,15})$/.exec(text);
  if (match === null) throw invalid('cursor', 'cursor must be a next_cursor this API gave.');
  return { ts: Number(match[1]), id: Number(match[2]) };
}

export function describeRecord(record: UsageRecord): Record<string, unknown> {
  return {
    request_id: record.requestId,
    time: new Date(record.ts).toISOString(),
    account: record.account ?? null,
    key_id: record.keyId,
    key_name: record.keyName,
    route: record.route,
    model: record.model,
    channel: record.channel,
    status: record.status,
    error_code: record.errorCode,
    stream: record.stream,
    input_tokens: record.promptTokens,
    cached_tokens: record.cachedTokens,
    cache_write_tokens: record.cacheWriteTokens,
    output_tokens: record.completionTokens,
    reasoning_tokens: record.reasoningTokens,
    images: record.images ?? 0,
    cost: record.cost === undefined ? null : formatMoney(record.cost),
    latency_ms: record.latencyMs,
    ttft_ms: record.ttftMs,
  };
}

function describeTotals(totals: UsageTotals): Record<string, unknown> {
  return {
    requests: totals.requests,
    errors: totals.errors,
    input_tokens: totals.promptTokens,
    cached_tokens: totals.cachedTokens,
    cache_write_tokens: totals.cacheWriteTokens,
    output_tokens: totals.completionTokens,
    reasoning_tokens: totals.reasoningTokens,
    images: totals.images,
    cost: formatMoney(totals.cost),
  };
}

export async function usagePage(services: GatewayServices, account: string | null, query: URLSearchParams, now = Date.now()): Promise<Record<string, unknown>> {
  const filter = readFilter(query, account, now);
  const limit = limitParam(query, MAX_PAGE, DEFAULT_PAGE);
  const before = readCursor(query.get('cursor'));
  const store = services.store;
  // One more than the page tells whether another page follows.
  const [rows, totals] = await Promise.all([
    store.usageLog(Object.assign({ limit: limit + 1 }, filter, before === undefined ? {} : { before })),
    store.usageTotals(filter),
  ]);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    object: 'list',
    data: page.map((row) => describeRecord(row.record)),
    totals: describeTotals(totals),
    next_cursor: rows.length > limit && last !== undefined ? `${last.record.ts}-${last.id}` : null,
  };
}

const CSV_COLUMNS = [
  'time',
  'request_id',
  'account',
  'key_id',
  'key_name',
  'route',
  'model',
  'channel',
  'status',
  'error_code',
  'stream',
  'input_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'output_tokens',
  'reasoning_tokens',
  'images',
  'cost',
  'latency_ms',
  'ttft_ms',
] as const;

function csvLine(row: UsageLogRow): string {
  const described = describeRecord(row.record);
  return CSV_COLUMNS.map((c) => csvField(described[c])).join(',') + '\r\n';
}

async function* csvRows(services: GatewayServices, filter: UsageFilter): AsyncGenerator<Uint8Array> {
  yield Buffer.from(CSV_COLUMNS.join(',') + '\r\n');
  let before: UsageCursor | undefined;
  for (;;) {
    const rows = await services.store.usageLog(Object.assign({ limit: CSV_PAGE }, filter, before === undefined ? {} : { before }));
    if (rows.length === 0) return;
    yield Buffer.from(rows.map(csvLine).join(''));
    const last = rows[rows.length - 1];
    if (rows.length < CSV_PAGE || last === undefined) return;
    before = { ts: last.record.ts, id: last.id };
  }
}

export function usageCsv(services: GatewayServices, account: string | null, query: URLSearchParams, now = Date.now()): RelayResult {
  const filter = readFilter(query, account, now);
  const day = new Date(filter.from).toISOString().slice(0, 10);
  return {
    kind: 'bytes',
    status: 200,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="usage-${day}.csv"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
    body: csvRows(services, filter),
  };
}
