import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openStore } from '../../../core/store/open-store.js';
import type { Store, UsageRecord } from '../../../core/store/store.js';
import { makeTempDir, makeUsage } from './store-fixtures.js';

describe('store usage', () => {
  let store: Store;
  let file: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    const tmp = await makeTempDir();
    cleanup = tmp.cleanup;
    file = join(tmp.dir, 'usage.db');
    store = await openStore(`sqlite:${file}`);
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
    store = await openStore(`sqlite:${file}`);

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
      makeUsage({ requestId: 'x', ts: 3 }),
    ]);
    const xs = await store.listUsage({ requestId: 'x' });
    assert.deepEqual(
      xs.map((r) => r.ts),
      [3, 1],
    );
    assert.equal((await store.listUsage({ limit: 2 })).length, 2);
    assert.deepEqual(await store.listUsage({ requestId: 'none' }), []);
  });

  it('defaults to 100 records and counts them all', async () => {
    const many: UsageRecord[] = Array.from({ length: 1234 }, (_, i) => makeUsage({ requestId: `r${i}`, ts: i }));
    await store.insertUsage(many);
    assert.equal(await store.countUsage(), 1234);
    const listed = await store.listUsage();
    assert.equal(listed.length, 100);
    assert.equal(listed[0]?.requestId, 'r1233');
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
