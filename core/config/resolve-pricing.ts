// The pricing block (and each group's price_multiplier) as a Pricing: amounts in nano-units. check-semantics.ts has
// already refused any amount parseMoney cannot hold, so nothing here throws on valid config.

import { parseMoney, parseRatio, type Ratio } from '../money/decimal.js';
import type { ModelPrice } from '../money/price.js';
import { Pricing } from '../money/pricing.js';
import { PRICING_DEFAULTS } from './defaults.js';
import type { Amount, GatewayConfig, ModelPrice as ModelPriceConfig } from './gateway.gen.js';

export function resolvePricing(raw: GatewayConfig): Pricing {
  const pricing = raw.pricing ?? {};
  const multipliers = new Map<string, Ratio>();
  const showCost: boolean = pricing.show_cost ?? PRICING_DEFAULTS.showCost;
  const showCostOf = new Map<string, boolean>();
  for (const [name, group] of Object.entries(raw.groups ?? {})) {
    if (group?.price_multiplier !== undefined) multipliers.set(name, parseRatio(group.price_multiplier));
    if (group?.show_cost !== undefined && group.show_cost !== showCost) showCostOf.set(name, group.show_cost);
  }
  return new Pricing({
    currency: pricing.currency ?? PRICING_DEFAULTS.currency,
    // Object key order is the file's order (no model pattern is an integer-like key: the schema asks for text).
    models: Object.entries(pricing.models ?? {}).flatMap(([pattern, price]) => (price === undefined ? [] : [{ pattern, price: modelPrice(price) }])),
    calls: new Map(Object.entries(pricing.calls ?? {}).flatMap(([op, amount]): [string, bigint][] => (amount === undefined ? [] : [[op, parseMoney(amount)]]))),
    multipliers,
    defaultOutputReserve: pricing.default_output_reserve ?? PRICING_DEFAULTS.defaultOutputReserve,
    unpriced: pricing.unpriced ?? PRICING_DEFAULTS.unpriced,
    reservationTimeoutMs: pricing.reservation_timeout_ms ?? PRICING_DEFAULTS.reservationTimeoutMs,
    showCost,
    showCostOf,
  });
}

function modelPrice(price: ModelPriceConfig): ModelPrice {
  const amount = (value: Amount | undefined, otherwise: bigint): bigint => (value === undefined ? otherwise : parseMoney(value));
  const input = amount(price.input, 0n);
  const output = amount(price.output, 0n);
  const resolved: ModelPrice = {
    input,
    output,
    cacheRead: amount(price.cache_read, input),
    cacheWrite: amount(price.cache_write, input),
    inputImage: amount(price.input_image, input),
    outputImage: amount(price.output_image, output),
    perImage: amount(price.per_image, 0n),
    perSecond: amount(price.per_second, 0n),
  };
  // Not part of any cost (so not of the prices' version): only of what a task sets aside.
  return price.task_reserve === undefined ? resolved : Object.assign(resolved, { taskReserve: parseMoney(price.task_reserve) });
}
