// usage.retention_days on a big table (issue 28): a SQLite store seeded with 1,000,000 old usage records (priced, of 3
// accounts), then the pruner deletes them all, a batch at a time, while the event loop's delay is measured
// (perf_hooks.monitorEventLoopDelay): SQLite's statements are synchronous, so each batch holds the loop for its
// length, and the p99 must stay under 20 ms. Also shown: how long the pruning took, the RSS before and after (the
// pruner never reads a table into memory: LiteLLM's pods ran out of memory doing this), and that the audit balances.
// Not part of npm test.
//
//   node --import tsx bench/retention.ts                  # 1M records
//   BENCH_RETENTION_RECORDS=200000 node --import tsx bench/retention.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createSilentLogger } from '../core/logging/logger.js';
import { openStore } from '../core/store/open-store.js';
import type { UsageRecord } from '../core/store/store.js';
import { UsagePruner } from '../core/store/usage-pruner.js';
import { STORE_PARTS } from '../features/index.js';

const RECORDS = Number(process.env['BENCH_RETENTION_RECORDS'] ?? 1_000_000);
const BOUND_MS = 20;
const ACCOUNTS = ['acme', 'globex', 'initech'];
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

function record(i: number): UsageRecord {
  return {
    requestId: `req_bench_${i}`,
    ts: START + Math.floor((i / RECORDS) * 30 * DAY),
    keyId: `key-${i % 21}`,
    keyName: `key-${i % 21}`,
    group: 'pro',
    route: '/v1/chat/completions',
    model: 'gpt-4o',
    upstreamModel: 'gpt-4o',
    channel: 'openai',
    status: 200,
    errorCode: null,
    stream: i % 2 === 0,
    promptTokens: 1200,
    completionTokens: 300,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    latencyMs: 800,
    ttftMs: 200,
    aborted: false,
    cost: 6000n,
    priceVersion: 'bench',
    account: ACCOUNTS[i % ACCOUNTS.length] as string,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-retention-'));
const store = await openStore(`sqlite:${join(dir, 'gateway.db')}`, STORE_PARTS);
try {
  await store.ledger.ensureAccounts(ACCOUNTS.map((name) => ({ name, description: null })), START);
  const seeding = performance.now();
  for (let i = 0; i < RECORDS; i += 5000) await store.insertUsage(Array.from({ length: Math.min(5000, RECORDS - i) }, (_, j) => record(i + j)));
  console.log(`seeded ${RECORDS} records in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const pruner = new UsagePruner({ store, retentionDays: () => 1, logger: createSilentLogger(), now: () => START + 400 * DAY });
  const started = performance.now();
  const deleted = await pruner.run();
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  const rssAfter = process.memoryUsage().rss;
  const p99 = delay.percentile(99) / 1e6;
  const max = delay.max / 1e6;
  const problems = await store.ledger.auditLedger();
  console.log(`pruned ${deleted} records in ${seconds.toFixed(1)} s (${Math.round(deleted / seconds)} records/s)`);
  console.log(`event loop delay while pruning: p50 ${(delay.percentile(50) / 1e6).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms (bound: p99 < ${BOUND_MS} ms)`);
  console.log(`RSS before ${(rssBefore / 2 ** 20).toFixed(0)} MB, after ${(rssAfter / 2 ** 20).toFixed(0)} MB`);
  console.log(`records left ${await store.countUsage()}, hourly rows kept ${(await store.hourlyUsage({ from: START, to: START + 31 * DAY })).length}, audit problems ${problems.length}`);
  if (deleted !== RECORDS || p99 >= BOUND_MS || problems.length > 0) process.exitCode = 1;
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
