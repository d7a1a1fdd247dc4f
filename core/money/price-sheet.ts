// A price as the console shows it: each unit's price in the currency (tokens per million, an image, a second of timed
// output, a call), with a group's multiplier applied, rounded up as a charge is (price.ts): what a caller pays.

import { divCeil, formatMoney, NANOS_PER_UNIT, type Ratio } from './decimal.js';
import type { ModelPrice } from './price.js';

/** A model's prices per unit, as decimal strings of the currency. */
export interface PriceSheet {
  readonly input_per_million: string;
  readonly output_per_million: string;
  readonly cache_read_per_million: string;
  readonly cache_write_per_million: string;
  readonly per_image: string;
  readonly per_second: string;
}

/** `nanos` times `multiplier`, rounded up. */
export function applyMultiplier(nanos: bigint, multiplier: Ratio): bigint {
  return divCeil(nanos * multiplier.numerator, multiplier.denominator);
}

/** A multiplier as a decimal ("1", "1.5"). */
export function multiplierText(multiplier: Ratio): string {
  return formatMoney(divCeil(multiplier.numerator * NANOS_PER_UNIT, multiplier.denominator));
}

export function priceSheet(price: ModelPrice, multiplier: Ratio): PriceSheet {
  const each = (nanos: bigint): string => formatMoney(applyMultiplier(nanos, multiplier));
  return {
    input_per_million: each(price.input),
    output_per_million: each(price.output),
    cache_read_per_million: each(price.cacheRead),
    cache_write_per_million: each(price.cacheWrite),
    per_image: each(price.perImage),
    per_second: each(price.perSecond),
  };
}
