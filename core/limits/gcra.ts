// GCRA (the generic cell rate algorithm): a token bucket kept as one number per subject, the theoretical arrival
// time (TAT). A limit of `limit` units per `periodMs` is a bucket of `limit` that refills continuously, one unit each
// periodMs / limit: `limit` units at once, then one per interval. That is how OpenAI and Anthropic describe their own
// limits (replenished continuously, not reset at the minute), so their clients' pacing fits it; it never lets a
// burst of twice the limit through at a window's edge as a fixed window does; and its state is O(1), which one Redis
// script updates atomically.

/** A limit: `limit` units (requests, tokens) per `periodMs`. */
export interface Rate {
  readonly limit: number;
  readonly periodMs: number;
}

/** What one check found, whether or not it admitted. */
export interface GcraResult {
  readonly admitted: boolean;
  /** The subject's new TAT when admitted; its unchanged one when not. */
  readonly tat: number;
  /** Units that could still be admitted now, after this one when admitted. */
  readonly remaining: number;
  /** Until the bucket is full again, ms. */
  readonly resetMs: number;
  /** When refused: until `cost` units would fit, ms; Infinity when they never can (cost over the limit). */
  readonly retryAfterMs: number;
}

/** Checks `cost` units against the subject whose TAT is `tat` (0 for one never seen). */
export function gcra(tat: number, now: number, rate: Rate, cost: number): GcraResult {
  const interval = rate.periodMs / rate.limit;
  const base = tat > now ? tat : now;
  const next = base + cost * interval;
  // Admitted while the bucket, after this cost, still holds no more than one period's worth.
  const allowedAt = next - rate.periodMs;
  if (allowedAt <= now) {
    return { admitted: true, tat: next, remaining: remainingAt(next, now, rate, interval), resetMs: next - now, retryAfterMs: 0 };
  }
  return {
    admitted: false,
    tat,
    remaining: remainingAt(base, now, rate, interval),
    resetMs: base - now,
    retryAfterMs: cost > rate.limit ? Number.POSITIVE_INFINITY : allowedAt - now,
  };
}

/** The subject's TAT after a correction of `delta` units (a request's tokens once its usage is known). */
export function corrected(tat: number, now: number, rate: Rate, delta: number): number {
  const moved = tat + delta * (rate.periodMs / rate.limit);
  // Returned units never take the bucket past full.
  return moved < now ? now : moved;
}

function remainingAt(tat: number, now: number, rate: Rate, interval: number): number {
  return Math.max(0, Math.floor((rate.periodMs - (tat - now)) / interval + 1e-9));
}
