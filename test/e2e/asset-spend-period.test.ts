// The asset library's priced calls under a daily max_spend: past the day's cap, the 402 in Volcengine's envelope
// (SpendingLimitReached) says when the day ends as every other API's does: x-gateway-budget-reset, retry-after
// (counted on the gateway's calendar clock, a test's here) and the message; the library is not called.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorOf, startAssetGateway, type AssetGateway } from '../helpers/asset-gateway.js';

const DAILY = 'sk-asset-daily-0123456789abcdef';
const IMAGE = { URL: 'https://example.com/cat.png', AssetType: 'Image' };
/** 18:00 UTC: six hours to the end of the day. */
const EVENING = Date.parse('2030-05-01T18:00:00Z');

describe('asset library: a daily max_spend', () => {
  let t: AssetGateway;
  let now = EVENING;
  before(async () => {
    // Two CreateAsset calls (0.002 each) a day.
    t = await startAssetGateway({ keys: `  - { name: daily, key: ${DAILY}, group: pro, max_spend: { amount: "0.004", period: day } }\n`, clock: () => now });
  });
  after(async () => {
    await t.stop();
  });

  it('refuses the call past the day cap with 402, x-gateway-budget-reset and retry-after, and serves it the next day', async () => {
    const groupId = String((await t.result(DAILY, 'CreateAssetGroup', { Name: 'daily' }))['Id']);
    for (let i = 0; i < 2; i++) await t.result(DAILY, 'CreateAsset', Object.assign({ GroupId: groupId }, IMAGE));
    const calls = t.fake.calls.length;
    const refused = await t.call(DAILY, 'CreateAsset', Object.assign({ GroupId: groupId }, IMAGE));
    assert.equal(refused.status, 402, refused.text);
    assert.equal(errorOf(refused).Code, 'SpendingLimitReached');
    assert.match(String(errorOf(refused).Message), /resets at 2030-05-02T00:00:00\.000Z/);
    assert.equal(refused.headers.get('x-gateway-budget-reset'), '2030-05-02T00:00:00.000Z');
    assert.equal(refused.headers.get('retry-after'), '21600');
    assert.equal(t.fake.calls.length, calls, 'the library never hears of it');

    now = Date.parse('2030-05-02T00:00:00Z');
    await t.result(DAILY, 'CreateAsset', Object.assign({ GroupId: groupId }, IMAGE));
  });
});
