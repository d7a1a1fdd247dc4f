// A channel's health over the last 5 and 60 minutes, from core's usage records (every instance's traffic, not only
// this one's), read over the (channel, ts) index of migration 0025. Counts and error rates are exact (one aggregate in
// SQL); percentiles come from the newest PERCENTILE_SAMPLE (override-store.ts) records, and say so when a window held more. Latency is the
// record's whole request; TTFB its time to the first byte (streams only).

import { PERCENTILE_SAMPLE, type HealthCounts, type OverrideStore, type TimedRow } from './override-store.js';

export const WINDOWS_MS = { m5: 5 * 60_000, m60: 60 * 60_000 } as const;

export interface WindowHealth {
  readonly requests: number;
  readonly errors: number;
  /** errors / requests; null without requests. */
  readonly error_rate: number | null;
  readonly latency_p50_ms: number | null;
  readonly latency_p99_ms: number | null;
  readonly ttfb_p50_ms: number | null;
  readonly ttfb_p99_ms: number | null;
  /** How many of the window's records the percentiles read. */
  readonly percentile_sample: number;
  /** true when the window held more records than the sample (a busy channel: the percentiles are of the newest). */
  readonly percentiles_sampled: boolean;
}

export interface ChannelHealthFigures {
  readonly m5: WindowHealth;
  readonly m60: WindowHealth;
}

/**
 * What counts against the channel: no answer (0), a timeout, a rate limit or a 5xx, the statuses failover acts on.
 * A client's own 4xx (a bad body) says nothing about the channel. (The store counts the same in SQL.)
 */
export function isChannelError(status: number): boolean {
  return status === 0 || status === 408 || status === 429 || status >= 500;
}

/** The nearest-rank percentile of sorted values; null for none. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? null;
}

/**
 * One window's figures: its exact counts, and percentiles over the sampled rows inside it (newest first). Sampled
 * only when the read was cut short inside the window (a full sample whose oldest row is still in it): not when a
 * record that came between the two queries makes the count one more than the rows.
 */
export function windowHealth(counts: { readonly requests: number; readonly errors: number }, sample: readonly TimedRow[], since: number): WindowHealth {
  const inside = sample.filter((r) => r.ts >= since);
  const oldest = sample[sample.length - 1];
  const cut = sample.length >= PERCENTILE_SAMPLE && oldest !== undefined && oldest.ts > since;
  const latency = inside.map((r) => r.latencyMs).sort((a, b) => a - b);
  const ttfb = inside.flatMap((r) => (r.ttftMs === null ? [] : [r.ttftMs])).sort((a, b) => a - b);
  return {
    requests: counts.requests,
    errors: counts.errors,
    error_rate: counts.requests === 0 ? null : counts.errors / counts.requests,
    latency_p50_ms: percentile(latency, 0.5),
    latency_p99_ms: percentile(latency, 0.99),
    ttfb_p50_ms: percentile(ttfb, 0.5),
    ttfb_p99_ms: percentile(ttfb, 0.99),
    percentile_sample: inside.length,
    percentiles_sampled: cut,
  };
}

/** Both windows of one channel: two queries, bounded by the index and PERCENTILE_SAMPLE. */
export async function channelHealth(store: OverrideStore, channel: string, now: number): Promise<ChannelHealthFigures> {
  const since60 = now - WINDOWS_MS.m60;
  const since5 = now - WINDOWS_MS.m5;
  const [counts, sample]: [HealthCounts, TimedRow[]] = await Promise.all([store.healthCounts(channel, since60, since5), store.timedRows(channel, since60)]);
  return { m5: windowHealth(counts.m5, sample, since5), m60: windowHealth(counts.m60, sample, since60) };
}

