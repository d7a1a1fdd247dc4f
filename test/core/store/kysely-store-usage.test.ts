import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openStore } from '../../../core/store/open-store.js';
import type { Store, UsageRecord } from '../../../core/store/store.js';
import { storeBackends } from '../../helpers/test-stores.js';
import { makeUsage } from './store-fixtures.js';
import { STORE_PARTS } from '../../../features/index.js';

for (const backend of storeBackends()) describe(`store usage (${backend.name})`, { skip: backend.skip }, () => {
  let store: Store;
  let file: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    const db = await backend.fresh();
    cleanup = db.cleanup;
    file = db.url;
    store = await openStore(file, STORE_PARTS);
  });
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  it('round-trips every field, including booleans and nulls, across a reopen', async () => {
    const full = makeUsage({ requestId: 'full' });
    const sparse = makeUsage({
      requestId: 'sparse',
      ts: full.ts + 1,
      upstreamModel: null,
      channel: null,
      status: 502,
      errorCode: 'GW_ERR_UPSTREAM_UNAVAILABLE',
      stream: false,
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      ttftMs: null,
      aborted: true,
    });
    await store.insertUsage([full, sparse]);
    await store.close();
    store = await openStore(file, STORE_PARTS);

    assert.deepEqual(await store.listUsage(), [sparse, full]);
  });

  it('stores fractional timings as whole milliseconds', async () => {
    await store.insertUsage([makeUsage({ latencyMs: 12.6, ttftMs: 3.2 })]);
    const [record] = await store.listUsage();
    assert.equal(record?.latencyMs, 13);
    assert.equal(record?.ttftMs, 3);
  });

  it('lists newest first by ts, then by insertion order', async () => {
    await store.insertUsage([
      makeUsage({ requestId: 'a', ts: 100 }),
      makeUsage({ requestId: 'b', ts: 300 }),
      makeUsage({ requestId: 'c', ts: 200 }),
    ]);
    await store.insertUsage([makeUsage({ requestId: 'd', ts: 300 })]);
    const ids = (await store.listUsage()).map((r) => r.requestId);
    assert.deepEqual(ids, ['d', 'b', 'c', 'a']);
  });

  it('filters by request id and honours the limit', async () => {
    await store.insertUsage([
      makeUsage({ requestId: 'x', ts: 1 }),
      makeUsage({ requestId: 'y', ts: 2 }),
      makeUsage({ requestId: 'z', ts: 3 }),
    ]);
    const ys = await store.listUsage({ requestId: 'y' });
    assert.deepEqual(
      ys.map((r) => r.ts),
      [2],
    );
    assert.equal((await store.listUsage({ limit: 2 })).length, 2);
    assert.deepEqual(await store.listUsage({ requestId: 'none' }), []);
  });

  it('keeps one record per request: a batch written again (its commit lost on the way back) adds nothing', async () => {
    // 57 records: a 50-row statement and single rows on SQLite, so both kinds of statement skip what is there.
    const batch: UsageRecord[] = Array.from({ length: 57 }, (_, i) => makeUsage({ requestId: `once-${i}`, ts: 10 + i }));
    await store.insertUsage(batch);
    // The retry, with one new record among the old ones and a later copy of the first that differs.
    await store.insertUsage([...batch, makeUsage({ requestId: 'new', ts: 99 }), makeUsage({ requestId: 'once-0', ts: 500, status: 500 })]);
    assert.equal(await store.countUsage(), 58);
    const first = await store.listUsage({ requestId: 'once-0' });
    assert.deepEqual(
      first.map((r) => [r.ts, r.status]),
      [[10, 200]],
      'the record written first stays',
    );
  });

  it('defaults to 100 records and counts them all', async () => {
    const many: UsageRecord[] = Array.from({ length: 1234 }, (_, i) => makeUsage({ requestId: `r${i}`, ts: i }));
    await store.insertUsage(many);
    assert.equal(await store.countUsage(), 1234);
    const listed = await store.listUsage();
    assert.equal(listed.length, 100);
    assert.equal(listed[0]?.requestId, 'r1233');
  });

  it('round-trips every field of a batch written in multi-row statements and single rows alike', async () => {
    // 57 = one 50-row statement and 7 single rows on SQLite; each record differs in every field.
    const batch: UsageRecord[] = Array.from({ length: 57 }, (_, i) =>
      makeUsage({
        requestId: `batch-${i}`,
        ts: 1_000 + i,
        keyId: `key-${i % 3}`,
        model: `model-${i}`,
        upstreamModel: i % 2 === 0 ? null : `up-${i}`,
        channel: i % 5 === 0 ? null : `ch-${i}`,
        status: 200 + i,
        errorCode: i % 4 === 0 ? `E${i}` : null,
        stream: i % 2 === 1,
        promptTokens: i * 7,
        completionTokens: i * 11,
        cachedTokens: i * 13,
        cacheWriteTokens: i * 17,
        reasoningTokens: i * 19,
        latencyMs: i * 23,
        ttftMs: i % 3 === 0 ? null : i * 29,
        aborted: i % 6 === 0,
      }),
    );
    await store.insertUsage(batch);
    const listed = await store.listUsage({ limit: 100 });
    assert.deepEqual([...listed].reverse(), batch);
  });

  it("keeps a video task's seconds, priced or not, in multi-row statements and single rows, and none where there were none", async () => {
    const priced = makeUsage({ requestId: 'video-priced', seconds: 8, cost: 617_800_000n, priceVersion: 'v1' });
    const unpriced = makeUsage({ requestId: 'video-free', ts: priced.ts + 1, seconds: 5 });
    const chat = makeUsage({ requestId: 'chat', ts: priced.ts + 2 });
    // 57 more, so that SQLite writes a 50-row statement and single rows: every other one a video task's.
    const batch = Array.from({ length: 57 }, (_, i) => Object.assign(makeUsage({ requestId: `seconds-${i}`, ts: priced.ts + 3 + i }), i % 2 === 0 ? { seconds: i } : {}));
    await store.insertUsage([priced, unpriced, chat, ...batch]);
    await store.close();
    store = await openStore(file, STORE_PARTS);

    const listed = await store.listUsage({ limit: 100 });
    assert.deepEqual([...listed].reverse(), [priced, unpriced, chat, ...batch]);
    assert.equal(Object.hasOwn(listed.find((r) => r.requestId === 'chat') ?? {}, 'seconds'), false, 'absent stays absent');
    const [audited] = await store.pricedUsage(0, 10);
    assert.equal(audited?.record.seconds, 8, 'the audit reads the seconds of a priced record');
  });

  it('inserts all or none', async () => {
    const bad = { ...makeUsage({ requestId: 'bad' }), model: null } as unknown as UsageRecord;
    const batch = [...Array.from({ length: 600 }, (_, i) => makeUsage({ requestId: `ok${i}` })), bad];
    await assert.rejects(store.insertUsage(batch));
    assert.equal(await store.countUsage(), 0);
  });

  it('accepts an empty batch', async () => {
    await store.insertUsage([]);
    assert.equal(await store.countUsage(), 0);
  });
});
