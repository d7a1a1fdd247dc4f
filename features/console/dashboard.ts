// GET /console/api/dashboard: an account's balance, spend today and this month, and its usage over a range in
// hourly or daily buckets, split by model and by key, read from the hourly sums (never the records: this stays fast
// on millions of them). A user sees their own account; an operator any one (?account=), or all.

import { formatMoney } from '../../core/money/decimal.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import type { HourlyUsage } from '../../core/store/store.js';
import { DAY_MS, HOUR_MS, invalid, timeParam } from '../../core/console/query-params.js';

/** The longest range asked at once. */
const MAX_RANGE_MS = 366 * DAY_MS;
const MAX_HOURLY_MS = 31 * DAY_MS;

interface Sums {
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  images: number;
  cost: bigint;
}

const empty = (): Sums => ({ requests: 0, errors: 0, input_tokens: 0, output_tokens: 0, cached_tokens: 0, reasoning_tokens: 0, images: 0, cost: 0n });

function add(sums: Sums, row: HourlyUsage): void {
  sums.requests += row.requests;
  sums.errors += row.errors;
  sums.input_tokens += row.promptTokens;
  sums.output_tokens += row.completionTokens;
  sums.cached_tokens += row.cachedTokens;
  sums.reasoning_tokens += row.reasoningTokens;
  sums.images += row.images;
  sums.cost += row.cost;
}

/** Sums as JSON: amounts as decimal strings (money is never a float). */
function shown(sums: Sums): Record<string, unknown> {
  return {
    requests: sums.requests,
    errors: sums.errors,
    input_tokens: sums.input_tokens,
    output_tokens: sums.output_tokens,
    cached_tokens: sums.cached_tokens,
    reasoning_tokens: sums.reasoning_tokens,
    images: sums.images,
    cost: formatMoney(sums.cost),
  };
}

/** The query's range and bucket: from/to as ISO times (to excluded), by default the last 24 hours by hour. */
export function readRange(query: URLSearchParams, now: number): { from: number; to: number; bucket: 'hour' | 'day' } {
  const bucket = query.get('bucket') || 'hour';
  if (bucket !== 'hour' && bucket !== 'day') throw invalid('bucket', 'bucket must be hour or day.');
  const size = bucket === 'hour' ? HOUR_MS : DAY_MS;
  const to = Math.ceil(timeParam(query, 'to', now) / size) * size;
  const from = Math.floor(timeParam(query, 'from', to - DAY_MS) / size) * size;
  if (from >= to || to - from > MAX_RANGE_MS) throw invalid('from', 'from must be before to, at most 366 days apart.');
  // Hours are rows the page draws: a month of them at most.
  if (bucket === 'hour' && to - from > MAX_HOURLY_MS) throw invalid('bucket', 'bucket=hour covers at most 31 days; use bucket=day for longer ranges.');
  return { from, to, bucket };
}

export async function dashboard(services: GatewayServices, account: string | null, query: URLSearchParams, now = Date.now()): Promise<Record<string, unknown>> {
  const { from, to, bucket } = readRange(query, now);
  const size = bucket === 'hour' ? HOUR_MS : DAY_MS;
  const store = services.store;
  const scope = account === null ? {} : { account };
  // Spend today and this month (UTC), whatever the range shown. Asked together: with PostgreSQL they run at once.
  const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
  const date = new Date(now);
  const monthStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const [rows, spentToday, spentMonth, keys, balance] = await Promise.all([
    store.hourlyUsage(Object.assign({ from, to, bucketMs: size }, scope)),
    store.hourlyCost(Object.assign({ from: dayStart, to: dayStart + DAY_MS }, scope)),
    store.hourlyCost(Object.assign({ from: monthStart, to: dayStart + DAY_MS }, scope)),
    store.listKeys(),
    account === null ? undefined : store.ledger.getAccount(account),
  ]);
  const totals = empty();
  const series = new Map<number, Sums>();
  for (let t = from; t < to; t += size) series.set(t, empty());
  const byModel = new Map<string, Sums>();
  const byKey = new Map<string, Sums>();
  for (const row of rows) {
    add(totals, row);
    const bucketStart = Math.floor(row.hour / size) * size;
    const point = series.get(bucketStart);
    if (point !== undefined) add(point, row);
    const model = byModel.get(row.model) ?? empty();
    add(model, row);
    byModel.set(row.model, model);
    const key = byKey.get(row.keyId) ?? empty();
    add(key, row);
    byKey.set(row.keyId, key);
  }
  const names = new Map(keys.map((k) => [k.id, k.name]));
  for (const k of services.config.keys) names.set(`config:${k.name}`, k.name);
  const biggest = (map: Map<string, Sums>): [string, Sums][] => [...map.entries()].sort((a, b) => (b[1].cost > a[1].cost ? 1 : b[1].cost < a[1].cost ? -1 : b[1].requests - a[1].requests));
  const buckets = [...series.keys()];
  const modelSplit = splitSeries(rows, buckets, size, biggest(byModel).map(([model]) => model), (row) => row.model);
  const keySplit = splitSeries(rows, buckets, size, biggest(byKey).map(([id]) => id), (row) => row.keyId);
  return {
    account,
    currency: services.config.pricing.currency,
    balance: balance === undefined ? null : formatMoney(balance.balance),
    spend_today: formatMoney(spentToday),
    spend_month: formatMoney(spentMonth),
    range: { from: new Date(from).toISOString(), to: new Date(to).toISOString(), bucket },
    totals: shown(totals),
    series: [...series.entries()].map(([t, sums]) => Object.assign({ t: new Date(t).toISOString() }, shown(sums))),
    by_model: biggest(byModel).map(([model, sums]) => Object.assign({ model }, shown(sums))),
    by_key: biggest(byKey).map(([id, sums]) => Object.assign({ key_id: id, name: names.get(id) ?? null }, shown(sums))),
    split: {
      by_model: modelSplit.map((s) => ({ name: s.name, cost: s.cost, tokens: s.tokens })),
      by_key: keySplit.map((s) => ({ key_id: s.name, name: s.name === OTHER ? OTHER : (names.get(s.name) ?? null), cost: s.cost, tokens: s.tokens })),
    },
  };
}

/** Series drawn apart in the charts; the rest are summed as one, "other". */
const SPLIT_TOP = 5;
const OTHER = 'other';

/**
 * Per bucket, the cost and tokens (input + output) of each of the biggest `ranked` names, and of the rest as "other":
 * the charts split by model or by key.
 */
function splitSeries(
  rows: readonly HourlyUsage[],
  buckets: readonly number[],
  size: number,
  ranked: readonly string[],
  nameOf: (row: HourlyUsage) => string,
): { name: string; cost: string[]; tokens: number[] }[] {
  const top = ranked.slice(0, SPLIT_TOP);
  const lines = (ranked.length > SPLIT_TOP ? [...top, OTHER] : top).map((name) => ({ name, cost: buckets.map(() => 0n), tokens: buckets.map(() => 0) }));
  const index = new Map(buckets.map((t, i) => [t, i]));
  for (const row of rows) {
    const at = index.get(Math.floor(row.hour / size) * size);
    const found = top.indexOf(nameOf(row));
    // Past the top five: "other", the last line.
    const line = lines[found === -1 ? lines.length - 1 : found];
    if (at === undefined || line === undefined) continue;
    line.cost[at] = (line.cost[at] ?? 0n) + row.cost;
    line.tokens[at] = (line.tokens[at] ?? 0) + row.promptTokens + row.completionTokens;
  }
  return lines.map((line) => ({ name: line.name, cost: line.cost.map(formatMoney), tokens: line.tokens }));
}
