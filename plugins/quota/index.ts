// quota: the money side of a request. Before the upstream call a metered key (one with an account, or a
// max_spend) reserves the request's maximum cost, or is refused with 402 in the caller's shape; at the end the
// reservation is settled to the actual cost of the request's usage, which the usage record then carries (and the
// store charges, once, with the record). Unmetered keys are never refused for money; their cost is still
// computed and recorded. Requests no upstream served (our 4xx, every channel failing, an upstream's 4xx) cost
// nothing; a failover pays only for the attempt that served. The caller is told the price as it is charged: a whole
// answer's is computed in the response phase and a stream's at its final usage (tell-cost.ts), and the finish
// settles that very amount.

import { GatewayError } from '../../core/errors.js';
import { outputCapOf } from '../../core/formats/output-cap.js';
import { budgetsOf, maxSpendReached, modelNotPriced } from '../../core/money/budgets.js';
import { SpendCalendar, type PeriodBounds, type SpendPeriod } from '../../core/money/spend-period.js';
import { maxCost } from '../../core/money/estimate.js';
import { BudgetRefused, type Reservation } from '../../core/money/leases.js';
import { callCost, type ModelPrice } from '../../core/money/price.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, Plugin, PluginFactory } from '../../core/pipeline/plugin.js';
import { CHARGE, OUTPUT_RESERVE, USAGE, USAGE_FINAL } from '../../core/pipeline/request-slots.js';
import type { Budget } from '../../core/store/ledger-store.js';
import type { QuotaOptions } from './options.gen.js';
import { admission, settledPrice, type Admission } from './price-request.js';
import { costTelling } from './tell-cost.js';

function refusal(err: unknown, now: number): GatewayError {
  if (err instanceof BudgetRefused) {
    return err.budget.kind === 'account'
      ? new GatewayError('GW_ERR_INSUFFICIENT_BALANCE', `The balance of account "${err.budget.account}" does not cover this request. Add credit to continue.`)
      : maxSpendReached(err.budget, now);
  }
  // The store could not be asked: refuse (and say when to retry) rather than serve what cannot be billed.
  return new GatewayError('GW_ERR_BILLING_UNAVAILABLE', 'The gateway cannot check the balance right now; retry shortly.', { cause: err, retryAfter: 1 });
}

const USES = ['config', 'leases', 'clock'] as const;
type Uses = (typeof USES)[number];
/** What this plugin uses of the gateway's services (its factory's `uses`). */
export type Services = Pick<GatewayServices, Uses>;

export const quotaPlugin: PluginFactory<QuotaOptions, Uses> = {
  name: 'quota',
  uses: USES,
  // Its finish sets the charge the meter's finish writes into the record (so it stands before meter), from the usage
  // meter read; without a record the charge (and the hold it drew on, kept until the record is written) would never
  // be settled, so meter is required.
  provides: [
    { slot: OUTPUT_RESERVE, phase: 'request' },
    { slot: USAGE, phase: 'finish' },
    { slot: CHARGE, phase: 'finish' },
  ],
  requires: [{ slot: USAGE, phase: 'finish' }],
  // To tell the price as it is charged: a whole answer's usage as meter read it, a stream's as its frames report it.
  reads: [
    { slot: USAGE, phase: 'response' },
    { slot: USAGE, phase: 'frame' },
    { slot: USAGE_FINAL, phase: 'frame' },
  ],
  create(_options, services): Plugin {
    const { pricing } = services.config;
    const { clock } = services;
    // Kept for this load's requests: a periodic cap's bounds are worked out once per period, not per request.
    const calendar = new SpendCalendar();
    const bounds = (period: SpendPeriod, at: number): PeriodBounds => calendar.bounds(period, at);
    // A config without prices: nothing costs anything, so there is nothing to reserve or settle; only a metered
    // key is refused (every model is unpriced), unless unpriced models are free.
    if (!pricing.pricesModels && !pricing.pricesCalls) {
      return {
        name: 'quota',
        request(ctx) {
          const key = ctx.key;
          if (key !== null && budgetsOf(key, clock(), bounds).length > 0 && ctx.request.model !== '' && pricing.unpriced === 'refuse') throw modelNotPriced(ctx.request.model);
        },
      };
    }
    const { leases } = services;
    const admissions = new WeakMap<RequestContext, Admission>();
    /** Sets `amount` aside for a metered key's request (at `price`, or `flat`), or refuses with 402. */
    const reserve = (ctx: RequestContext, budgets: Budget[], amount: bigint, price: ModelPrice | null, flat?: bigint): void | Promise<void> => {
      let reservation: Reservation | Promise<Reservation>;
      try {
        reservation = leases.reserve(budgets, amount);
      } catch (err) {
        throw refusal(err, clock());
      }
      if (reservation instanceof Promise) {
        // Not served from this instance's holds: the request waits for one to be written in the store (traced).
        const write = ctx.trace === null ? null : ctx.trace.storeWrite('acquire_hold');
        return reservation.then(
          (r) => {
            write?.end(null);
            admissions.set(ctx, admission(price, r, flat));
          },
          (err: unknown) => {
            const refused = refusal(err, clock());
            write?.end(refused.code);
            throw refused;
          },
        );
      }
      admissions.set(ctx, admission(price, reservation, flat));
      return undefined;
    };
    const hooks: Plugin = {
      name: 'quota',
      request(ctx) {
        const key = ctx.key;
        const operation = ctx.request.operation;
        if (key !== null && operation !== undefined) {
          // A flat-priced call (pricing.calls): its price reserved, charged once it succeeded. One without
          // a price is free, whatever the key.
          const flat = pricing.callPrice(operation);
          if (flat === null) return undefined;
          const amount = callCost(flat, pricing.multiplierOf(key.group));
          const budgets = budgetsOf(key, clock(), bounds);
          if (budgets.length === 0 || amount === 0n) {
            admissions.set(ctx, admission(null, null, amount));
            return undefined;
          }
          return reserve(ctx, budgets, amount, null, amount);
        }
        const model = ctx.request.model;
        // '' is an endpoint about no one model (the model list): nothing to price.
        if (key === null || model === '') return undefined;
        const price = pricing.priceOf(model);
        if (price === null) {
          // Unmetered (no account, no cap): served, unpriced.
          if (budgetsOf(key, clock(), bounds).length === 0) return undefined;
          if (pricing.unpriced === 'refuse') throw modelNotPriced(model);
          // Served free, and recorded so (a cost of 0 to the account).
          admissions.set(ctx, admission(price, null));
          return undefined;
        }
        const budgets = budgetsOf(key, clock(), bounds);
        if (budgets.length === 0) {
          admissions.set(ctx, admission(price, null));
          return undefined;
        }
        const caps = ctx.format.outputCaps;
        const amount = maxCost(ctx.request, caps, price, pricing.multiplierOf(key.group), pricing.defaultOutputReserve);
        // A request naming no cap is reserved at the default: where it is translated, that is the cap sent upstream.
        if (caps.length > 0 && pricing.defaultOutputReserve > 0 && outputCapOf(ctx.request.head, caps) === null) ctx.set(OUTPUT_RESERVE, pricing.defaultOutputReserve);
        if (amount === 0n) {
          // A free model (or a multiplier of 0): nothing to set aside, still recorded.
          admissions.set(ctx, admission(price, null));
          return undefined;
        }
        return reserve(ctx, budgets, amount, price);
      },
      finish(ctx) {
        const admitted = admissions.get(ctx);
        const key = ctx.key;
        if (admitted === undefined || key === null) return;
        const priced = settledPrice(ctx, admitted, pricing.multiplierOf(key.group));
        const { cost, estimated } = priced;
        // The estimate becomes the request's usage: the record shows (and the audit computes) what was charged.
        if (estimated && priced.usage !== null) ctx.set(USAGE, priced.usage);
        const draws = admitted.reservation === null ? [] : leases.settle(admitted.reservation, cost);
        ctx.set(
          CHARGE,
          key.account === undefined
            ? { cost, priceVersion: pricing.version, draws, estimated }
            : { cost, priceVersion: pricing.version, account: key.account, draws, estimated },
        );
      },
    };
    return Object.assign(hooks, costTelling(admissions, pricing));
  },
};

export default quotaPlugin;
