// The overrides' table and the health query on both databases (SQLite, and PostgreSQL when
// GATEWAY_TEST_POSTGRES_URL is set): an override saved, replaced, read back with its types (PostgreSQL's bigint and
// double precision come back as strings), cleared; the health counts of one channel inside each window, exact, with the errors counted in SQL as isChannelError
// counts them; the timed rows newest first.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UsageRecord } from '../../core/store/store.js';
import { storeBackends, type OpenedStore } from '../../test/helpers/test-stores.js';
import { isChannelError } from './health.js';
import { CHANNEL_CONTROL_STORE } from './store-part.js';

const NOW = 1_800_000_000_000;

function record(channel: string, ts: number, i: number, status = 200): UsageRecord {
  return {
    requestId: `r-${channel}-${i}`, ts, keyId: 'k', keyName: 'k', group: 'g', route: '/v1/chat/completions', model: 'm', upstreamModel: 'm', channel,
    status, errorCode: null, stream: true, promptTokens: 1, completionTokens: 1, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0,
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
      const rows = await opened.store.part(CHANNEL_CONTROL_STORE).timedRows('x', NOW - 3_600_000);
      assert.deepEqual(rows, [
        { latencyMs: 101, ttftMs: 11, ts: NOW - 1000 },
        { latencyMs: 102, ttftMs: 12, ts: NOW - 2000 },
      ]);
    });

    it('counts each window exactly, the channel\'s errors only (no answer, 408, 429, 5xx)', async () => {
      const statuses = [200, 0, 408, 429, 500, 503, 400, 404, 499, 200];
      const recent = statuses.map((status, i) => record('z', NOW - 60_000, 100 + i, status));
      const older = statuses.map((status, i) => record('z', NOW - 30 * 60_000, 200 + i, status));
      await opened.store.insertUsage([...recent, ...older, record('z', NOW - 2 * 3_600_000, 300, 500), record('w', NOW - 1000, 301, 500)]);
      const counts = await opened.store.part(CHANNEL_CONTROL_STORE).healthCounts('z', NOW - 3_600_000, NOW - 5 * 60_000);
      assert.equal(statuses.filter(isChannelError).length, 5, 'the page\'s rule, in JS');
      assert.deepEqual(counts, { m5: { requests: 10, errors: 5 }, m60: { requests: 20, errors: 10 } });
      assert.deepEqual(await opened.store.part(CHANNEL_CONTROL_STORE).healthCounts('none', NOW - 3_600_000, NOW - 5 * 60_000), {
        m5: { requests: 0, errors: 0 },
        m60: { requests: 0, errors: 0 },
      });
    });
  });
}
