// A channel's health over the last 5 and 60 minutes, from core's usage records (one bounded query per channel: the
// (channel, ts) index of migration 0025, at most HEALTH_ROW_CAP rows), so every instance's traffic counts, not only
// this one's. Latency is the record's whole request; TTFB its time to the first byte (streams only).

import type { HealthRow } from './override-store.js';

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
}

/**
 * What counts against the channel: no answer (0), a timeout, a rate limit or a 5xx, the statuses failover acts on.
 * A client's own 4xx (a bad body) says nothing about the channel.
 */
export function isChannelError(status: number): boolean {
  return status === 0 || status === 408 || status === 429 || status >= 500;
}

/** The nearest-rank percentile of sorted values; null for none. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? null;
}

export function windowHealth(rows: readonly HealthRow[], since: number): WindowHealth {
  const inside = rows.filter((r) => r.ts >= since);
  const errors = inside.filter((r) => isChannelError(r.status)).length;
  const latency = inside.map((r) => r.latencyMs).sort((a, b) => a - b);
  const ttfb = inside.flatMap((r) => (r.ttftMs === null ? [] : [r.ttftMs])).sort((a, b) => a - b);
  return {
    requests: inside.length,
    errors,
    error_rate: inside.length === 0 ? null : errors / inside.length,
    latency_p50_ms: percentile(latency, 0.5),
    latency_p99_ms: percentile(latency, 0.99),
    ttfb_p50_ms: percentile(ttfb, 0.5),
    ttfb_p99_ms: percentile(ttfb, 0.99),
  };
}
