// The pruner's loop (core/store/usage-pruner.ts): batches until one comes back short, pauses between them, does
// nothing without usage.retention_days, survives a failing store (logged, retried next run), and stops mid-run.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSilentLogger } from '../../../core/logging/logger.js';
import { UsagePruner } from '../../../core/store/usage-pruner.js';

const DAY = 86_400_000;

function fakeStore(left: number, fail = false) {
  const calls: { before: number; limit: number }[] = [];
  const periodCalls: { before: number; limit: number }[] = [];
  return {
    calls,
    periodCalls,
    store: {
      async prunePeriodRows(before: number, limit: number): Promise<number> {
        periodCalls.push({ before, limit });
        return 0;
      },
      async pruneUsage(before: number, limit: number): Promise<number> {
        calls.push({ before, limit });
        if (fail) throw new Error('database is locked');
        const n = Math.min(limit, left);
        left -= n;
        return n;
      },
    },
  };
}

test('deletes batch after batch until a short one, with the cut-off retention_days before now', async () => {
  const fake = fakeStore(2500);
  const pruner = new UsagePruner({ store: fake.store, retentionDays: () => 7, logger: createSilentLogger(), batch: 1000, pauseMs: 1, now: () => 100 * DAY });
  assert.equal(await pruner.run(), 2500);
  assert.deepEqual(fake.calls, [
    { before: 93 * DAY, limit: 1000 },
    { before: 93 * DAY, limit: 1000 },
    { before: 93 * DAY, limit: 1000 },
  ]);
  // The same run: the spend rows of periods that started 122 days before (ended more than 90 days before).
  assert.deepEqual(fake.periodCalls, [{ before: -22 * DAY, limit: 1000 }]);
});

test('without retention_days no record is pruned', async () => {
  const fake = fakeStore(10);
  const pruner = new UsagePruner({ store: fake.store, retentionDays: () => null, logger: createSilentLogger() });
  assert.equal(await pruner.run(), 0);
  assert.equal(fake.calls.length, 0);
  assert.equal(fake.periodCalls.length, 1, 'old period rows go whatever the retention');
});

test('a failing store is logged, not thrown; stop() ends a run between batches', async () => {
  const failing = fakeStore(10, true);
  const warned: unknown[] = [];
  const logger = Object.assign(createSilentLogger(), { warn: (obj: unknown) => void warned.push(obj) });
  assert.equal(await new UsagePruner({ store: failing.store, retentionDays: () => 1, logger }).run(), 0);
  assert.equal(warned.length, 1);

  const endless = fakeStore(1_000_000);
  const pruner = new UsagePruner({ store: endless.store, retentionDays: () => 1, logger: createSilentLogger(), batch: 10, pauseMs: 5 });
  const run = pruner.run();
  await new Promise((resolve) => setTimeout(resolve, 30));
  await pruner.stop();
  const deleted = await run;
  assert.ok(deleted > 0 && deleted < 1_000_000, `${deleted} deleted before the stop`);
});
