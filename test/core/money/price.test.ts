// A request's cost: each kind of token at its price, images at theirs, times the group's multiplier, rounded up
// once. Checked against the same sum done in exact rationals.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_AMOUNT, parseMoney, parseRatio, ONE } from '../../../core/money/decimal.js';
import { callCost, costOf, type ModelPrice } from '../../../core/money/price.js';
import { Pricing, pricingFromDocument } from '../../../core/money/pricing.js';
import type { Usage } from '../../../core/ir/usage.js';

const usage = (u: Partial<Usage>): Usage => ({ promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, ...u });

const price = (p: Partial<Record<keyof ModelPrice, string>>): ModelPrice => {
  const input = parseMoney(p.input ?? '0');
  const output = parseMoney(p.output ?? '0');
  return {
    input,
    output,
    cacheRead: p.cacheRead === undefined ? input : parseMoney(p.cacheRead),
    cacheWrite: p.cacheWrite === undefined ? input : parseMoney(p.cacheWrite),
    inputImage: p.inputImage === undefined ? input : parseMoney(p.inputImage),
    outputImage: p.outputImage === undefined ? output : parseMoney(p.outputImage),
    perImage: parseMoney(p.perImage ?? '0'),
    perSecond: parseMoney(p.perSecond ?? '0'),
  };
};

describe('costOf', () => {
  it('prices each kind of token at its own price', () => {
    const demo = price({ input: '1.00', output: '2.00', cacheRead: '0.10', cacheWrite: '1.25' });
    // 1000 prompt tokens of which 200 cache reads and 300 cache writes: 500 plain.
    const u = usage({ promptTokens: 1000, cachedTokens: 200, cacheWriteTokens: 300, completionTokens: 400, reasoningTokens: 100 });
    // 500 x 1.00 + 200 x 0.10 + 300 x 1.25 + 400 x 2.00 = 500 + 20 + 375 + 800 = 1695 per 1M -> 0.001695
    assert.equal(costOf(u, demo, ONE), parseMoney('0.001695'));
    assert.equal(costOf(u, demo, parseRatio('0.5')), parseMoney('0.0008475'));
  });

  it('one token of a $0.05-per-1M model is 50 nano-units, not rounded away', () => {
    assert.equal(costOf(usage({ promptTokens: 1 }), price({ input: '0.05' }), ONE), 50n);
  });

  it('prices images per image and image tokens at their own prices', () => {
    assert.equal(costOf(usage({ images: 3 }), price({ perImage: '0.04' }), ONE), parseMoney('0.12'));
    const gptImage = price({ input: '5', output: '10', inputImage: '10', outputImage: '40' });
    const u = usage({ promptTokens: 100, inputImageTokens: 60, completionTokens: 1000, outputImageTokens: 1000, images: 1 });
    // 40 x 5 + 60 x 10 + 0 x 10 + 1000 x 40 = 200 + 600 + 40000 = 40800 per 1M
    assert.equal(costOf(u, gptImage, ONE), parseMoney('0.0408'));
  });

  it('prices seconds of video at per_second, with the tokens, rounded once', () => {
    const seedance = price({ output: '2.00', perSecond: '0.05' });
    // 108,900 x 2.00 per 1M + 8 x 0.05 = 0.2178 + 0.4
    assert.equal(costOf(usage({ completionTokens: 108_900, seconds: 8 }), seedance, ONE), parseMoney('0.6178'));
    assert.equal(costOf(usage({ completionTokens: 108_900, seconds: 8 }), seedance, parseRatio('0.5')), parseMoney('0.3089'));
    assert.equal(costOf(usage({ completionTokens: 108_900 }), seedance, ONE), parseMoney('0.2178'), 'no seconds, no per-second charge');
    assert.equal(costOf(usage({ seconds: 8 }), price({ output: '2.00' }), ONE), 0n, 'no per_second price, no charge for seconds');
    // Half a nano-unit of seconds and a millionth of one of tokens: 1 rounded once, 2 if each part were rounded.
    assert.equal(costOf(usage({ completionTokens: 1, seconds: 1 }), price({ output: '0.000000001', perSecond: '0.000000001' }), parseRatio('0.5')), 1n);
  });

  it('equals the exact rational sum rounded up, for any counts, prices and multiplier', () => {
    const amount = fc.bigInt({ min: 0n, max: 100_000_000_000n });
    fc.assert(
      fc.property(
        fc.record({ plain: fc.nat(2_000_000), read: fc.nat(2_000_000), write: fc.nat(2_000_000), out: fc.nat(2_000_000), images: fc.nat(10), seconds: fc.nat(60) }),
        fc.tuple(amount, amount, amount, amount, amount, amount),
        fc.bigInt({ min: 0n, max: 5_000_000_000n }),
        (t, [input, output, cacheRead, cacheWrite, perImage, perSecond], m) => {
          const p: ModelPrice = { input, output, cacheRead, cacheWrite, inputImage: input, outputImage: output, perImage, perSecond };
          const u = usage({ promptTokens: t.plain + t.read + t.write, cachedTokens: t.read, cacheWriteTokens: t.write, completionTokens: t.out, images: t.images, seconds: t.seconds });
          const multiplier = { numerator: m, denominator: 1_000_000_000n };
          const exactNumerator =
            (BigInt(t.plain) * input + BigInt(t.read) * cacheRead + BigInt(t.write) * cacheWrite + BigInt(t.out) * output + BigInt(t.images) * perImage * 1_000_000n + BigInt(t.seconds) * perSecond * 1_000_000n) * m;
          const exactDenominator = 1_000_000n * 1_000_000_000n;
          const cost = costOf(u, p, multiplier);
          assert.ok(cost * exactDenominator >= exactNumerator, 'never below the exact amount');
          assert.ok((cost - 1n) * exactDenominator < exactNumerator || cost === 0n, 'less than one nano-unit above it');
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('is at most MAX_AMOUNT, whatever the counts and prices (a record\'s cost fits the store\'s 64-bit column)', () => {
    const dear = price({ input: '1000000000', output: '1000000000' });
    assert.equal(costOf(usage({ promptTokens: 100_000_000, completionTokens: 100_000_000 }), dear, parseRatio('1000')), MAX_AMOUNT);
    assert.equal(costOf(usage({ promptTokens: 1, completionTokens: 0 }), dear, ONE), 1_000_000_000_000n, 'below it, exact');
  });

  it('prices flat calls times the multiplier, rounded up', () => {
    assert.equal(callCost(parseMoney('0.002'), parseRatio('0.5')), parseMoney('0.001'));
    assert.equal(callCost(3n, parseRatio('0.5')), 2n);
  });
});

describe('Pricing', () => {
  const make = (models: [string, ModelPrice][], multipliers: [string, string][] = []): Pricing =>
    new Pricing({
      currency: 'USD',
      models: models.map(([pattern, p]) => ({ pattern, price: p })),
      calls: new Map([['videogen.asset.CreateAsset', parseMoney('0.002')]]),
      multipliers: new Map(multipliers.map(([g, r]) => [g, parseRatio(r)])),
      defaultOutputReserve: 4096,
      unpriced: 'refuse',
      reservationTimeoutMs: 30_000,
    });

  it('takes the first matching pattern, in order', () => {
    const fast = price({ input: '0.5' });
    const demo = price({ input: '1' });
    const pricing = make([['demo-fast', fast], ['demo-*', demo]]);
    assert.equal(pricing.priceOf('demo-fast'), fast);
    assert.equal(pricing.priceOf('demo-slow'), demo);
    assert.equal(pricing.priceOf('other'), null);
    assert.equal(make([['demo-*', demo], ['demo-fast', fast]]).priceOf('demo-fast'), demo);
    assert.equal(pricing.callPrice('videogen.asset.CreateAsset'), 2_000_000n);
    assert.equal(pricing.callPrice('nothing'), null);
    assert.deepEqual(pricing.multiplierOf('unknown'), ONE);
  });

  it('names its prices with a version that changes with any price or multiplier, and reads back from its document', () => {
    const a = make([['demo-*', price({ input: '1' })]], [['cheap', '0.5']]);
    assert.equal(make([['demo-*', price({ input: '1' })]], [['cheap', '0.5']]).version, a.version);
    assert.notEqual(make([['demo-*', price({ input: '1.000000001' })]], [['cheap', '0.5']]).version, a.version);
    assert.notEqual(make([['demo-*', price({ input: '1' })]], [['cheap', '0.6']]).version, a.version);
    const back = pricingFromDocument(a.document);
    assert.equal(back.version, a.version);
    assert.deepEqual(back.priceOf('demo-x'), a.priceOf('demo-x'));
    assert.deepEqual(back.multiplierOf('cheap'), a.multiplierOf('cheap'));
  });

  it('names per_second in its document only when it is set, so configs without it keep their versions', () => {
    const a = make([['demo-*', price({ input: '1' })]], [['cheap', '0.5']]);
    assert.doesNotMatch(a.document, /per_second/);
    const video = make([['demo-*', price({ input: '1', perSecond: '0.05' })]], [['cheap', '0.5']]);
    assert.match(video.document, /"per_second":"0.05"/);
    assert.notEqual(video.version, a.version);
    const back = pricingFromDocument(video.document);
    assert.equal(back.version, video.version);
    assert.equal(back.priceOf('demo-x')?.perSecond, parseMoney('0.05'));
    assert.equal(pricingFromDocument(a.document).priceOf('demo-x')?.perSecond, 0n, 'a document without it: none');
  });
});
