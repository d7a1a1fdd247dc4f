// The hourly sums (issue 25: what dashboards read), on SQLite and PostgreSQL: written with the records, in the same
// transaction; per hour, account, key, model and channel; a batch retried after a lost commit adds nothing again;
// read back by account or by key over a range of hours.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HourlyUsage } from '../../../core/store/store.js';
import { storeBackends } from '../../helpers/test-stores.js';
import { makeUsage, useTempStore } from './store-fixtures.js';

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000 - (1_700_000_000_000 % HOUR);

/** The sums that matter here, per row. */
const brief = (rows: readonly HourlyUsage[]): string[] =>
  rows.map((r) => `${(r.hour - T0) / HOUR}h ${r.account ?? '-'} ${r.keyId} ${r.model} ${r.channel ?? '-'}: ${r.requests} req ${r.errors} err ${r.promptTokens}+${r.completionTokens} tok ${r.images} img ${r.cost} cost ${r.latencyMs} ms`);

for (const backend of storeBackends()) describe(`hourly usage (${backend.name})`, { skip: backend.skip }, () => {
  const temp = useTempStore('hourly.db', backend);

  it('sums the records inserted, per hour, account, key, model and channel; a retried batch adds nothing again', async () => {
    const store = temp.get();
    await store.ledger.ensureAccounts([{ name: 'acme', description: null }], T0);
    const batch = [
      makeUsage({ requestId: 'a', ts: T0 + 5, account: 'acme', keyId: 'k1', cost: 1000n, priceVersion: 'v1' }),
      makeUsage({ requestId: 'b', ts: T0 + 10, account: 'acme', keyId: 'k1', cost: 500n, priceVersion: 'v1', status: 429, errorCode: 'GW_ERR_UPSTREAM_RATE_LIMITED' }),
      makeUsage({ requestId: 'c', ts: T0 + HOUR + 1, keyId: 'k2', model: 'gpt-image-1', channel: null, images: 2, status: 502 }),
      makeUsage({ requestId: 'd', ts: T0 + HOUR - 1, keyId: 'k2' }),
    ];
    await store.insertUsage(batch);
    // The same batch again (its commit was lost on the way back), with one new record.
    // It also holds one request id twice (one row goes in): counted once.
    const e = makeUsage({ requestId: 'e', ts: T0 + 20, account: 'acme', keyId: 'k1', cost: 250n, priceVersion: 'v1' });
    await store.insertUsage([...batch, e, e]);
    assert.deepEqual(brief(await store.hourlyUsage({ from: T0, to: T0 + 2 * HOUR })), [
      '0h acme k1 gpt-4o openai-main: 3 req 1 err 36+102 tok 0 img 1750 cost 2550 ms',
      '0h - k2 gpt-4o openai-main: 1 req 0 err 12+34 tok 0 img 0 cost 850 ms',
      '1h - k2 gpt-image-1 -: 1 req 1 err 12+34 tok 2 img 0 cost 850 ms',
    ]);
    assert.equal(await store.countUsage(), 5);
    assert.deepEqual(brief(await store.hourlyUsage({ from: T0, to: T0 + 2 * HOUR, account: 'acme' })), ['0h acme k1 gpt-4o openai-main: 3 req 1 err 36+102 tok 0 img 1750 cost 2550 ms']);
    assert.deepEqual(
      (await store.hourlyUsage({ from: T0 + HOUR, to: T0 + 2 * HOUR, keyId: 'k2' })).map((r) => r.model),
      ['gpt-image-1'],
      'the range is of hours: [from, to)',
    );
    // A request id twice in one batch, unpriced first: the row that goes in is the priced one (inserted first), and
    // so is what the sums count.
    await store.insertUsage([makeUsage({ requestId: 'f', ts: T0 + 3 * HOUR, keyId: 'k3' }), makeUsage({ requestId: 'f', ts: T0 + 3 * HOUR, keyId: 'k3', cost: 70n, priceVersion: 'v1' })]);
    assert.deepEqual(
      (await store.hourlyUsage({ from: T0 + 3 * HOUR, to: T0 + 4 * HOUR })).map((r) => [r.requests, r.cost]),
      [[1, 70n]],
    );
    const [first] = await store.hourlyUsage({ from: T0, to: T0 + HOUR, account: 'acme' });
    assert.deepEqual([first?.cachedTokens, first?.cacheWriteTokens, first?.reasoningTokens], [15, 9, 21]);
  });

  it('sums hours into buckets per account, key and model, the channels together', async () => {
    const store = temp.get();
    await store.ledger.ensureAccounts([{ name: 'acme', description: null }], T0);
    await store.insertUsage([
      makeUsage({ requestId: 'a', ts: T0 + 5, account: 'acme', keyId: 'k1', cost: 100n, priceVersion: 'v1' }),
      makeUsage({ requestId: 'b', ts: T0 + HOUR + 5, account: 'acme', keyId: 'k1', channel: 'openai-backup', cost: 10n, priceVersion: 'v1' }),
      makeUsage({ requestId: 'c', ts: T0 + 2 * HOUR + 5, account: 'acme', keyId: 'k1', cost: 1n, priceVersion: 'v1', status: 500 }),
      makeUsage({ requestId: 'd', ts: T0 + 5, keyId: 'k2' }),
    ]);
    // Buckets of two hours from T0 (a multiple of two hours here, as a day's start is of days).
    const twoHours = 2 * HOUR;
    const from = T0 - (T0 % twoHours);
    const rows = await store.hourlyUsage({ from, to: from + 2 * twoHours, bucketMs: twoHours });
    const line = (r: HourlyUsage): string => `${(r.hour - from) / HOUR}h ${r.account ?? '-'} ${r.keyId} ${r.channel ?? '-'}: ${r.requests} req ${r.errors} err ${r.cost} cost ${r.latencyMs} ms`;
    const expected = T0 === from
      ? ['0h acme k1 -: 2 req 0 err 110 cost 1700 ms', '0h - k2 -: 1 req 0 err 0 cost 850 ms', '2h acme k1 -: 1 req 1 err 1 cost 850 ms']
      : ['0h acme k1 -: 1 req 0 err 100 cost 850 ms', '0h - k2 -: 1 req 0 err 0 cost 850 ms', '2h acme k1 -: 2 req 1 err 11 cost 1700 ms'];
    assert.deepEqual(rows.map(line), expected);
    assert.deepEqual((await store.hourlyUsage({ from, to: from + 2 * twoHours, bucketMs: twoHours, account: 'acme' })).map((r) => r.requests), T0 === from ? [2, 1] : [1, 2]);
    assert.equal(await store.hourlyCost({ from, to: from + 2 * twoHours, account: 'acme' }), 111n);
    assert.equal(await store.hourlyCost({ from: T0 + HOUR, to: T0 + 3 * HOUR }), 11n);
    assert.equal(await store.hourlyCost({ from: T0 + 10 * HOUR, to: T0 + 11 * HOUR }), 0n);
  });
});
