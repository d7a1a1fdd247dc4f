// A max_spend as the admin API and the console take it (core/money/spend-cap-input.ts): a plain amount for life, or
// {amount, period, timezone?} per period with the zone as the runtime spells it; each bad part a 400 naming its field.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../core/errors.js';
import { readSpendCap, spendCapOf } from '../../../core/money/spend-cap-input.js';

const paramOf = (value: unknown): string | null => {
  try {
    readSpendCap(value, 'max_spend');
    return null;
  } catch (err) {
    assert.ok(err instanceof GatewayError);
    assert.equal(err.code, 'GW_ERR_REQUEST_INVALID_FIELD');
    return err.param;
  }
};

describe('readSpendCap', () => {
  it('reads a lifetime amount, and a cap per period in UTC or a named zone', () => {
    assert.deepEqual(readSpendCap('5.00', 'max_spend'), { maxSpend: 5_000_000_000n, spendPeriod: null });
    assert.deepEqual(readSpendCap(2, 'max_spend'), { maxSpend: 2_000_000_000n, spendPeriod: null });
    assert.deepEqual(readSpendCap({ amount: '1.5', period: 'week' }, 'max_spend'), { maxSpend: 1_500_000_000n, spendPeriod: { unit: 'week', timezone: 'UTC' } });
    // The zone as the runtime spells it: one zone, one name in the period rows and listings.
    assert.deepEqual(readSpendCap({ amount: '1', period: 'day', timezone: 'europe/berlin' }, 'max_spend').spendPeriod, { unit: 'day', timezone: 'Europe/Berlin' });
    assert.deepEqual(spendCapOf({ amount: '1', period: 'month' }), { maxSpend: 1_000_000_000n, spendPeriod: { unit: 'month', timezone: 'UTC' } });
    assert.deepEqual(spendCapOf('3'), { maxSpend: 3_000_000_000n });
    assert.equal(spendCapOf(null), null);
  });

  it('names the field of each bad part', () => {
    assert.equal(paramOf({ amount: '1', period: 'day', timezone: 'Mars/Olympus_Mons' }), 'max_spend.timezone');
    assert.equal(paramOf({ amount: '1', period: 'day', timezone: '' }), 'max_spend.timezone');
    assert.equal(paramOf({ amount: '1', period: 'hour' }), 'max_spend.period');
    assert.equal(paramOf({ amount: '1' }), 'max_spend.period');
    assert.equal(paramOf({ period: 'day' }), 'max_spend.amount');
    assert.equal(paramOf({ amount: '-1', period: 'day' }), 'max_spend.amount');
    assert.equal(paramOf({ amount: '1', period: 'day', reset: true }), 'max_spend.reset');
    assert.equal(paramOf(['1']), 'max_spend');
    assert.equal(paramOf('1.0000000001'), 'max_spend');
  });
});
