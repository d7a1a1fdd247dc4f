// Telling the caller what its request costs, as it is charged: a whole answer's x-gateway-cost header, a stream's
// `cost` beside the usage of its final usage event (where its API has room: ClientFormat.encodeFrameCost). What is
// told is computed once and kept (Admission.told): the finish settles exactly that.

import { formatMoney } from '../../core/money/decimal.js';
import type { Pricing } from '../../core/money/pricing.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { Plugin } from '../../core/pipeline/plugin.js';
import { USAGE, USAGE_FINAL } from '../../core/pipeline/request-slots.js';
import type { SseFrame } from '../../core/sse/frame.js';
import { finishedOutcome, priceRequest, type Admission } from './price-request.js';

/** The charge of a whole answer, as a decimal in the currency (docs/money.md). */
export const COST_HEADER = 'x-gateway-cost';

/** The response hook, and the frame hook when any group's keys are told their costs. */
export function costTelling(admissions: WeakMap<RequestContext, Admission>, pricing: Pricing): Pick<Plugin, 'response' | 'frame'> {
  const hooks: Pick<Plugin, 'response'> = {
    response(ctx, result) {
      // A whole answer's price is known before it is sent (meter read its usage in this phase, just before): its
      // headers tell it. A stream's comes with its final usage (frame, below); a file has none.
      if (result.kind !== 'body') return;
      const admitted = admissions.get(ctx);
      const key = ctx.key;
      if (admitted === undefined || key === null || !pricing.showsCost(key.group)) return;
      const priced = priceRequest(ctx, { status: result.status, bodyBytes: result.body.length, broken: false }, admitted.price, admitted.flat, pricing.multiplierOf(key.group));
      admitted.told = { priced, from: ctx.get(USAGE) };
      // A copy of the headers other plugins added (the rate limits'), the cost set on it: one object per answer.
      const headers: Record<string, string> = Object.assign({}, ctx.responseHeaders);
      headers[COST_HEADER] = formatMoney(priced.cost);
      ctx.responseHeaders = headers;
    },
  };
  if (!pricing.showsCostAnywhere) return hooks;
  return Object.assign(hooks, {
    frame(ctx: RequestContext, frame: SseFrame): SseFrame {
      // Every frame before the stream's final usage costs one look at a slot.
      if (ctx.get(USAGE_FINAL) !== true) return frame;
      const admitted = admissions.get(ctx);
      const usage = ctx.get(USAGE);
      // Priced once per usage meter read: the frames after the final one report none, and pass as they are.
      if (admitted === undefined || usage === admitted.seen) return frame;
      admitted.seen = usage;
      const key = ctx.key;
      const encode = ctx.format.encodeFrameCost;
      if (key === null || encode === undefined || !pricing.showsCost(key.group)) return frame;
      const priced = priceRequest(ctx, finishedOutcome(ctx), admitted.price, admitted.flat, pricing.multiplierOf(key.group));
      const withCost = encode(frame, formatMoney(priced.cost));
      // A frame without room for it (after the usage chunk meter dropped, which the client did not ask for): the
      // caller is told nothing, and the finish prices the request.
      if (withCost === null) return frame;
      admitted.told = { priced, from: usage };
      return withCost;
    },
  });
}
