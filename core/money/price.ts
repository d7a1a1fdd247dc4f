// What one request costs: its usage at a model's prices, times its group's multiplier, rounded up to a nano-unit
// once (never per kind of token, so the sum of parts is not rounded several times).

import type { Usage } from '../ir/usage.js';
import { divCeil, MAX_AMOUNT, type Ratio } from './decimal.js';

const PER_MILLION = 1_000_000n;

/** A model's prices in nano-units: per 1M tokens of each kind, per image made, and per second of timed output made. */
export interface ModelPrice {
  readonly input: bigint;
  readonly output: bigint;
  /** Cache reads; the input price when not given. */
  readonly cacheRead: bigint;
  /** Cache writes (Anthropic's cache_creation_input_tokens); the input price when not given. */
  readonly cacheWrite: bigint;
  /** Input tokens that are images (the GPT image models report them apart); the input price when not given. */
  readonly inputImage: bigint;
  /** Output tokens that are images; the output price when not given. */
  readonly outputImage: bigint;
  readonly perImage: bigint;
  /** Per second of timed output made (a generated clip's reported duration); 0 when not given. */
  readonly perSecond: bigint;
  /** What a task of this model sets aside when it is made (`per_task`), in place of its feature's own estimate. */
  readonly taskReserve?: bigint;
}

/**
 * The cost of `usage` at `price`, times `multiplier`, in nano-units, rounded up, at most MAX_AMOUNT. Prompt tokens are split as the IR
 * counts them (cache reads and writes are subsets of promptTokens, image tokens subsets of prompt and completion).
 */
export function costOf(usage: Usage, price: ModelPrice, multiplier: Ratio): bigint {
  const inputImage = usage.inputImageTokens ?? 0;
  const outputImage = usage.outputImageTokens ?? 0;
  const plainInput = Math.max(0, usage.promptTokens - usage.cachedTokens - usage.cacheWriteTokens - inputImage);
  const plainOutput = Math.max(0, usage.completionTokens - outputImage);
  // Every part over the same denominator (1M tokens), so the whole is rounded once.
  const perMillion =
    BigInt(plainInput) * price.input +
    BigInt(usage.cachedTokens) * price.cacheRead +
    BigInt(usage.cacheWriteTokens) * price.cacheWrite +
    BigInt(inputImage) * price.inputImage +
    BigInt(plainOutput) * price.output +
    BigInt(outputImage) * price.outputImage +
    BigInt(usage.images ?? 0) * price.perImage * PER_MILLION +
    BigInt(usage.seconds ?? 0) * price.perSecond * PER_MILLION;
  const cost = divCeil(perMillion * multiplier.numerator, PER_MILLION * multiplier.denominator);
  // Bounded as every amount is: a record's cost must fit the store's 64-bit column, whatever the prices.
  return cost > MAX_AMOUNT ? MAX_AMOUNT : cost;
}

/** A flat per-call price times `multiplier`, rounded up. */
export function callCost(price: bigint, multiplier: Ratio): bigint {
  return divCeil(price * multiplier.numerator, multiplier.denominator);
}
