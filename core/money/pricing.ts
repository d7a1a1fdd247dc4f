// The prices of one config load: a model's prices (first matching pattern, in file order), flat prices per call,
// each group's multiplier, and the version that names them all. A usage record keeps the version its cost was
// computed with, and the store keeps each version's document, so the audit can compute every charge again.

import { createHash } from 'node:crypto';
import { compileGlob, type ModelMatcher } from '../routing/glob.js';
import { formatMoney, ONE, parseMoney, type Ratio } from './decimal.js';
import type { ModelPrice } from './price.js';

export interface PricedPattern {
  readonly pattern: string;
  readonly price: ModelPrice;
}

export interface PricingInit {
  readonly currency: string;
  readonly models: readonly PricedPattern[];
  readonly calls: ReadonlyMap<string, bigint>;
  readonly multipliers: ReadonlyMap<string, Ratio>;
  readonly defaultOutputReserve: number;
  /** What a metered key gets for a model without a price: refused (403 model_not_priced) or served free. */
  readonly unpriced: 'refuse' | 'free';
  readonly reservationTimeoutMs: number;
  /** pricing.show_cost: whether callers are told what a request cost (x-gateway-cost, a stream's usage.cost). */
  readonly showCost?: boolean;
  /** The groups whose show_cost differs from it. */
  readonly showCostOf?: ReadonlyMap<string, boolean>;
}

export class Pricing {
  readonly currency: string;
  readonly defaultOutputReserve: number;
  readonly unpriced: 'refuse' | 'free';
  readonly reservationTimeoutMs: number;
  /** A short hash of `document`: the same prices give the same version, across restarts and instances. */
  readonly version: string;
  /** The prices as JSON text (amounts as decimal strings), stored under `version`. */
  readonly document: string;
  readonly #models: readonly (PricedPattern & { readonly matches: ModelMatcher })[];
  readonly #calls: ReadonlyMap<string, bigint>;
  readonly #multipliers: ReadonlyMap<string, Ratio>;
  readonly #showCost: boolean;
  readonly #showCostOf: ReadonlyMap<string, boolean>;

  constructor(init: PricingInit) {
    this.currency = init.currency;
    this.defaultOutputReserve = init.defaultOutputReserve;
    this.unpriced = init.unpriced;
    this.reservationTimeoutMs = init.reservationTimeoutMs;
    this.#models = init.models.map((m) => ({ pattern: m.pattern, price: m.price, matches: compileGlob(m.pattern) }));
    this.#calls = init.calls;
    this.#multipliers = init.multipliers;
    // Not part of the document: telling the price changes no price.
    this.#showCost = init.showCost ?? true;
    this.#showCostOf = init.showCostOf ?? new Map();
    this.document = pricingDocument(init);
    this.version = createHash('sha256').update(this.document).digest('hex').slice(0, 16);
  }

  /** Whether any model has a price (without, no request costs anything and nothing need be settled). */
  get pricesModels(): boolean {
    return this.#models.length > 0;
  }

  /** Whether any call has a flat price (pricing.calls). */
  get pricesCalls(): boolean {
    return this.#calls.size > 0;
  }

  /** The prices of `model` (the first pattern it matches), or null when none does. */
  priceOf(model: string): ModelPrice | null {
    for (const m of this.#models) if (m.matches(model)) return m.price;
    return null;
  }

  /** Every flat-priced operation (pricing.calls) with its price, nano-units per call. */
  get callPrices(): ReadonlyMap<string, bigint> {
    return this.#calls;
  }

  /** The flat price of an operation (a feature's priced call, pricing.calls), or null when it has none. */
  callPrice(operation: string): bigint | null {
    return this.#calls.get(operation) ?? null;
  }

  /** Whether the keys of `group` are told what their requests cost (its show_cost, else pricing.show_cost). */
  showsCost(group: string): boolean {
    return this.#showCostOf.get(group) ?? this.#showCost;
  }

  /** Whether any group's keys are told what their requests cost. */
  get showsCostAnywhere(): boolean {
    if (this.#showCost) return true;
    for (const shown of this.#showCostOf.values()) if (shown) return true;
    return false;
  }

  /** A group's price_multiplier (1 when it sets none, or for a group this config does not know). */
  multiplierOf(group: string): Ratio {
    return this.#multipliers.get(group) ?? ONE;
  }
}

const ratioText = (r: Ratio): string => formatMoney((r.numerator * 1_000_000_000n) / r.denominator);

/** The canonical JSON of what a cost depends on; its hash is the version. */
function pricingDocument(init: PricingInit): string {
  const price = (p: ModelPrice): Record<string, string> => {
    const text: Record<string, string> = {
      input: formatMoney(p.input),
      output: formatMoney(p.output),
      cache_read: formatMoney(p.cacheRead),
      cache_write: formatMoney(p.cacheWrite),
      input_image: formatMoney(p.inputImage),
      output_image: formatMoney(p.outputImage),
      per_image: formatMoney(p.perImage),
    };
    // Only when set: a config without it keeps the version (the hash of this text) it had before per_second existed,
    // so the records priced with it still find their prices.
    if (p.perSecond !== 0n) text['per_second'] = formatMoney(p.perSecond);
    return text;
  };
  return JSON.stringify({
    models: init.models.map((m) => [m.pattern, price(m.price)]),
    calls: [...init.calls].sort(([a], [b]) => (a < b ? -1 : 1)).map(([op, amount]) => [op, formatMoney(amount)]),
    multipliers: [...init.multipliers].sort(([a], [b]) => (a < b ? -1 : 1)).map(([group, r]) => [group, ratioText(r)]),
  });
}

/** A Pricing read back from its document (the audit computes old charges with the prices they were made with). */
export function pricingFromDocument(document: string): Pricing {
  const doc = JSON.parse(document) as {
    models: [string, Record<string, string>][];
    calls: [string, string][];
    multipliers: [string, string][];
  };
  const m = (text: string | undefined): bigint => parseMoney(text ?? '0');
  return new Pricing({
    currency: '',
    models: doc.models.map(([pattern, p]) => ({
      pattern,
      price: {
        input: m(p['input']),
        output: m(p['output']),
        cacheRead: m(p['cache_read']),
        cacheWrite: m(p['cache_write']),
        inputImage: m(p['input_image']),
        outputImage: m(p['output_image']),
        perImage: m(p['per_image']),
        perSecond: m(p['per_second']),
      },
    })),
    calls: new Map(doc.calls.map(([op, amount]) => [op, m(amount)])),
    multipliers: new Map(doc.multipliers.map(([group, r]) => [group, { numerator: m(r), denominator: 1_000_000_000n }])),
    defaultOutputReserve: 0,
    unpriced: 'refuse',
    reservationTimeoutMs: 0,
  });
}
