// A rate limit as a token bucket that refills continuously: `limit` units per `periodMs`, all of them at once when
// full, then more as it refills. That is how OpenAI and Anthropic describe their own limits (replenished
// continuously, not reset at the minute), so their clients' pacing fits it, and it never lets twice the limit
// through at a window's edge as a fixed window does. (GCRA keeps the same thing as one time; its fractional
// intervals lost requests to rounding, so the bucket is kept in integers instead.)
//
// The units are integers, exact in a double (and in Redis's Lua): one unit of the limit is `periodMs` points of
// level, and the bucket gains `limit` points per millisecond. A full bucket holds limit x periodMs points (at most
// 1e9 x 60,000 = 6e13, far below 2^53). A correction may take the level below zero: a debt the refill pays first.

/** A limit: `limit` units (requests, tokens) per `periodMs`. */
export interface Rate {
  readonly limit: number;
  readonly periodMs: number;
}

/** A bucket's state: its level (points) at time `at` (ms). None yet: full. */
export interface Bucket {
  readonly level: number;
  readonly at: number;
}

/** What one check found, whether or not it admitted. */
export interface BucketResult {
  readonly admitted: boolean;
  /** The bucket after this check: less `cost` when admitted, refilled to `now` either way. */
  readonly bucket: Bucket;
  /** Units that could be admitted now, before this request. */
  readonly remainingBefore: number;
  /** Units that could still be admitted now: after this request when admitted, else as before it. */
  readonly remaining: number;
  /** Until the bucket is full again, ms. */
  readonly resetMs: number;
  /** When refused: until `cost` units would fit, ms; Infinity when they never can (cost over the limit). */
  readonly retryAfterMs: number;
}

/** The bucket refilled up to `now` (a clock that went back refills nothing). */
export function refilled(bucket: Bucket | undefined, now: number, rate: Rate): Bucket {
  const full = rate.limit * rate.periodMs;
  if (bucket === undefined) return { level: full, at: now };
  const level = now > bucket.at ? Math.min(full, bucket.level + (now - bucket.at) * rate.limit) : bucket.level;
  return { level, at: Math.max(now, bucket.at) };
}

/** Takes `cost` units from the bucket, or refuses: the arithmetic the Redis script does too (redis-limiter.ts). */
export function take(bucket: Bucket | undefined, now: number, rate: Rate, cost: number): BucketResult {
  const current = refilled(bucket, now, rate);
  const full = rate.limit * rate.periodMs;
  const need = cost * rate.periodMs;
  const remainingBefore = Math.max(0, Math.floor(current.level / rate.periodMs));
  if (current.level >= need) {
    const level = current.level - need;
    return {
      admitted: true,
      bucket: { level, at: current.at },
      remainingBefore,
      remaining: Math.max(0, Math.floor(level / rate.periodMs)),
      resetMs: Math.ceil((full - level) / rate.limit),
      retryAfterMs: 0,
    };
  }
  return {
    admitted: false,
    bucket: current,
    remainingBefore,
    remaining: remainingBefore,
    resetMs: Math.ceil((full - current.level) / rate.limit),
    retryAfterMs: cost > rate.limit ? Number.POSITIVE_INFINITY : Math.ceil((need - current.level) / rate.limit),
  };
}

/** The bucket after a request's tokens were corrected by `delta` (used less estimated): a debt, or units back. */
export function corrected(bucket: Bucket, now: number, rate: Rate, delta: number): Bucket {
  const current = refilled(bucket, now, rate);
  return { level: Math.min(rate.limit * rate.periodMs, current.level - delta * rate.periodMs), at: current.at };
}
