// What a request costs: the usage it is charged for (the upstream's, or the estimate that stands in for it) at its
// price. Computed once, when the answer's price can be told (a whole answer's headers, a stream's final usage
// event) or at the finish; the finish settles exactly what was computed (quota's index.ts).

import { boundedUsage, type Usage } from '../../core/ir/usage.js';
import { answerUsage, cutStreamUsage } from '../../core/money/estimate.js';
import { costOf, type ModelPrice } from '../../core/money/price.js';
import type { Ratio } from '../../core/money/decimal.js';
import type { Reservation } from '../../core/money/leases.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import { USAGE, USAGE_FINAL } from '../../core/pipeline/request-slots.js';

/** A request quota admitted: what it is priced at, what it holds, and the price it was told. */
export interface Admission {
  /** null: the model has no price (pricing.unpriced: free, or an unmetered key): it costs nothing. */
  readonly price: ModelPrice | null;
  readonly reservation: Reservation | null;
  /** A flat-priced call's cost (pricing.calls, the group's multiplier applied): charged when it succeeded. */
  readonly flat: bigint | undefined;
  /**
   * The price the caller was told (a whole answer's x-gateway-cost, a stream's usage.cost), and meter's usage it was
   * computed from: what the finish settles, while that usage still stands.
   */
  told: { readonly priced: Priced; readonly from: Usage | undefined } | null;
  /** The last of meter's usage values a stream's frames were priced at (each new one once). */
  seen: Usage | undefined;
}

export function admission(price: ModelPrice | null, reservation: Reservation | null, flat?: bigint): Admission {
  return { price, reservation, flat, told: null, seen: undefined };
}

/** A request's price, once decided. */
export interface Priced {
  /** Nano-units. */
  readonly cost: bigint;
  /** The usage it is the price of: the reported one, or the estimate (then the request's usage: the record's). */
  readonly usage: Usage | null;
  /** The output tokens were estimated from what was delivered. */
  readonly estimated: boolean;
}

/** How an answer went, as far as its price goes: at the response phase, a whole answer about to be sent. */
export interface Outcome {
  readonly status: number;
  /** The bytes of a whole answer's body. */
  readonly bodyBytes: number;
  /** It failed or was cut after its status (an error, a client that left). */
  readonly broken: boolean;
}

/** The outcome as the request's finish knows it. */
export function finishedOutcome(ctx: RequestContext): Outcome {
  return { status: ctx.status, bodyBytes: ctx.bodyBytesSent, broken: ctx.error !== null || ctx.aborted };
}

/**
 * The price of `ctx`'s request: a flat call's when it succeeded (`flat`, the multiplier applied), else its usage at
 * `price` times `multiplier`; nothing when no upstream served it (a status of 400 or more), or without a price.
 */
export function priceRequest(ctx: RequestContext, outcome: Outcome, price: ModelPrice | null, flat: bigint | undefined, multiplier: Ratio): Priced {
  // Served: the client got a success status (a stream cut later still got one); only then does usage count.
  const served = outcome.status < 400;
  // A flat call costs its price once it succeeded; a refused one (its upstream's 4xx, our 404) nothing.
  if (flat !== undefined) return { cost: served ? flat : 0n, usage: served ? (ctx.get(USAGE) ?? null) : null, estimated: false };
  let usage = served ? (ctx.get(USAGE) ?? null) : null;
  let estimated = false;
  // Where the upstream did not report it all, the usage is estimated, and the estimate becomes the request's usage,
  // so that the record shows (and the audit computes) what was charged. (An image request's usage is its images,
  // counted from the answer.)
  if (served && ctx.request.images === undefined) {
    // Usage without any input is none: every request has input. A translated answer whose upstream reported nothing
    // says zeros, in its client's shape, as if they were counts.
    const reported = usage !== null && (usage.promptTokens > 0 || usage.completionTokens > 0) ? usage : null;
    if (ctx.stream && (ctx.get(USAGE_FINAL) !== true || reported === null)) {
      // Cut before its end, or ended without its final usage (an upstream that ignores include_usage): the output
      // the client got is counted from what it was sent.
      const cut = cutStreamUsage(ctx.request, ctx.format.outputCaps, reported, ctx.framesSent);
      usage = cut.usage;
      estimated = cut.estimated;
    } else if (!ctx.stream && reported === null && outcome.status >= 200 && outcome.status < 300 && !outcome.broken && outcome.bodyBytes > 0) {
      // A whole answer without usage: its output counted from the answer the client got.
      usage = answerUsage(ctx.request, ctx.format.outputCaps, outcome.bodyBytes);
      estimated = true;
    }
    // An estimate is bounded as a reported count is (meter), whatever max_tokens said.
    if (estimated) usage = boundedUsage(usage);
  }
  return { cost: price === null || usage === null ? 0n : costOf(usage, price, multiplier), usage, estimated };
}

/**
 * What the request pays at its finish: the price it was told (one computation, whatever happened since: a client
 * that left after a whole answer's headers), unless meter's usage changed after it (a usage event the caller got
 * without a price); else its price as it ended.
 */
export function settledPrice(ctx: RequestContext, admitted: Admission, multiplier: Ratio): Priced {
  const { told } = admitted;
  if (told !== null && told.from === ctx.get(USAGE)) return told.priced;
  return priceRequest(ctx, finishedOutcome(ctx), admitted.price, admitted.flat, multiplier);
}
