// Money is integer nano-units; decimals only at the edges (config, API, CLI), converted exactly or refused.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { divCeil, formatMoney, parseMoney } from '../../../core/money/decimal.js';

describe('parseMoney and formatMoney', () => {
  it('read decimals exactly, YAML numbers through their shortest text', () => {
    assert.equal(parseMoney('12.5'), 12_500_000_000n);
    assert.equal(parseMoney(0.05), 50_000_000n);
    assert.equal(parseMoney(0.1), 100_000_000n, 'never 0.1 as a float times 1e9');
    assert.equal(parseMoney(1e-7), 100n);
    assert.equal(parseMoney('0.000000001'), 1n);
    assert.equal(parseMoney('-3'), -3_000_000_000n);
    assert.equal(parseMoney(' 7 '), 7_000_000_000n);
    assert.equal(parseMoney('1.5e3'), 1_500_000_000_000n);
    assert.equal(parseMoney('123456789012345678901234567890'), 123456789012345678901234567890n * 1_000_000_000n, 'no float anywhere');
  });

  it('refuse what a nano-unit cannot hold, and what is not a decimal', () => {
    for (const bad of ['0.0000000001', 1e-10, 'abc', '', '1.', '.5', '1,5', Number.NaN, Number.POSITIVE_INFINITY, '0x10']) {
      assert.throws(() => parseMoney(bad), RangeError, String(bad));
    }
  });

  it('round-trip every amount, and print without trailing zeros', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), (nanos) => {
        const text = formatMoney(nanos);
        assert.doesNotMatch(text, /\.\d*0$/);
        assert.equal(parseMoney(text), nanos);
      }),
      { numRuns: 2000 },
    );
    assert.equal(formatMoney(0n), '0');
    assert.equal(formatMoney(-1n), '-0.000000001');
    assert.equal(formatMoney(5_000_000_000n), '5');
  });

  it('divCeil rounds up, and only when there is a remainder', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), fc.bigInt({ min: 1n, max: 10n ** 12n }), (a, b) => {
        const q = divCeil(a, b);
        assert.ok(q * b >= a && (q - 1n) * b < a);
      }),
    );
  });
});
