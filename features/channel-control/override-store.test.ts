// The overrides' table and the health query on both databases (SQLite, and PostgreSQL when
// GATEWAY_TEST_POSTGRES_URL is set): an override saved, replaced, read back with its types (PostgreSQL's bigint and
// double precision come back as strings), cleared; the health rows of one channel inside the window only.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UsageRecord } from '../../core/store/store.js';
import { storeBackends, type OpenedStore } from '../../test/helpers/test-stores.js';
import { CHANNEL_CONTROL_STORE } from './store-part.js';

const NOW = 1_800_000_000_000;

function record(channel: string, ts: number, i: number): UsageRecord {
  return {
    requestId: `r-${channel}-${i}`, ts, keyId: 'k', keyName: 'k', group: 'g', route: '/v1/chat/completions', model: 'm', upstreamModel: 'm', channel,
    status: 200, errorCode: null, stream: true, promptTokens: 1, completionTokens: 1, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0,
    latencyMs: 100 + i, ttftMs: 10 + i, aborted: false,
  };
}

for (const backend of storeBackends()) {
  describe(`channel overrides store (${backend.name})`, { skip: backend.skip }, () => {
    let opened: OpenedStore;
    before(async () => {
      opened = await backend.open();
    });
    after(async () => {
      await opened?.cleanup();
    });

    it('saves, replaces, reads back and clears an override', async () => {
      const part = opened.store.part(CHANNEL_CONTROL_STORE);
      await part.put({ channel: 'a', disabled: true, weight: null, updatedAt: NOW, updatedBy: 'root' });
      await part.put({ channel: 'b', disabled: false, weight: 2.5, updatedAt: NOW, updatedBy: 'root' });
      await part.put({ channel: 'a', disabled: false, weight: 7, updatedAt: NOW + 1, updatedBy: 'ops' });
      assert.deepEqual(await part.all(), [
        { channel: 'a', disabled: false, weight: 7, updatedAt: NOW + 1, updatedBy: 'ops' },
        { channel: 'b', disabled: false, weight: 2.5, updatedAt: NOW, updatedBy: 'root' },
      ]);
      assert.equal(await part.clear('a'), true);
      assert.equal(await part.clear('a'), false);
      assert.deepEqual((await part.all()).map((o) => o.channel), ['b']);
    });

    it('reads one channel\'s records inside the window, newest first', async () => {
      await opened.store.insertUsage([record('x', NOW - 1000, 1), record('x', NOW - 2000, 2), record('x', NOW - 90 * 60_000, 3), record('y', NOW - 1000, 4)]);
      const rows = await opened.store.part(CHANNEL_CONTROL_STORE).healthRows('x', NOW - 3_600_000);
      assert.deepEqual(rows, [
        { status: 200, latencyMs: 101, ttftMs: 11, ts: NOW - 1000 },
        { status: 200, latencyMs: 102, ttftMs: 12, ts: NOW - 2000 },
      ]);
    });
  });
}
