// The usage-writer scenario, run by bench/run.ts in a child process of its own (so its CPU, heap and SQLite
// file disturb no other scenario): the gateway's real UsageWriter on the real SQLite store, fed usage records
// as fast as it accepts them, then closed; the rows in the database are counted.
//
//   node --import tsx bench/usage-writer-load.ts --db <file> --seconds 3 --out <result.json>
//
// Records are added in batches with a setImmediate between batches, so the writer's timer and its flushes
// run as they would in the gateway; while the writer says `saturated` (the gateway would answer 503), adding
// waits. Written per second = rows / (first add to close() resolved): what the store sustains, the final
// drain included. Lost = added - rows, which must be 0.

import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { RequestIds } from '../core/pipeline/request-id.js';
import { openStore } from '../core/store/open-store.js';
import type { UsageRecord } from '../core/store/store.js';
import { UsageWriter } from '../core/store/usage-writer.js';
import { STORE_PARTS } from '../features/index.js';

export interface UsageWriterResult {
  readonly added: number;
  readonly rows: number;
  readonly lost: number;
  /** First add() to close() resolved, seconds. */
  readonly wallS: number;
  /** Rows written per second of wallS. */
  readonly writtenPerS: number;
  /** add() calls per second while adding (before close). */
  readonly offeredPerS: number;
  /** How long close() took to write what was still queued, ms. */
  readonly closeMs: number;
  readonly maxPending: number;
  /** Times adding paused because the writer was saturated. */
  readonly saturatedWaits: number;
  readonly writeErrors: number;
  /** CPU of this process over wallS per record written, microseconds. */
  readonly cpuUsPerRecord: number;
  /** Peak RSS of this process, KiB. */
  readonly maxRssKb: number;
}

const BATCH = 500;
const ids = new RequestIds();

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    seconds: { type: 'string', default: '3' },
    out: { type: 'string' },
    'warmup-seconds': { type: 'string', default: '0.5' },
  },
});
if (values.db === undefined || values.out === undefined) throw new Error('--db and --out are required');

let serial = 0;
/** A record shaped like the meter's (plugins/meter): a finished stream or JSON answer of one key. */
function record(now: number): UsageRecord {
  serial++;
  const stream = (serial & 1) === 0;
  return {
    // The gateway's own ids: they decide where each row lands in the request_id index.
    requestId: ids.next(now),
    ts: now,
    keyId: 'key_bench_0001',
    keyName: 'bench',
    group: 'bench',
    route: stream ? '/v1/messages' : '/v1/chat/completions',
    model: stream ? 'claude-bench-sonnet' : 'bench-model',
    upstreamModel: stream ? 'claude-bench-sonnet' : 'bench-model',
    channel: stream ? 'fake-anthropic' : 'fake',
    status: 200,
    errorCode: null,
    stream,
    promptTokens: 75 + (serial % 1000),
    completionTokens: 20 + (serial % 50),
    cachedTokens: serial % 3 === 0 ? 64 : 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    latencyMs: 3 + (serial % 40),
    ttftMs: stream ? 1 + (serial % 10) : null,
    aborted: false,
  };
}

interface FeedStats {
  added: number;
  maxPending: number;
  saturatedWaits: number;
}

/** Adds records for `seconds`, as fast as the writer accepts them. */
async function feed(writer: UsageWriter, seconds: number): Promise<FeedStats> {
  const stats: FeedStats = { added: 0, maxPending: 0, saturatedWaits: 0 };
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    if (writer.saturated) {
      stats.saturatedWaits++;
      await sleep(1);
      continue;
    }
    const now = Date.now();
    for (let i = 0; i < BATCH; i++) writer.add(record(now));
    stats.added += BATCH;
    if (writer.pending > stats.maxPending) stats.maxPending = writer.pending;
    await yieldToLoop();
  }
  return stats;
}

async function main(): Promise<void> {
  const store = await openStore(`sqlite:${values.db as string}`, STORE_PARTS);
  let writeErrors = 0;
  const options = { flushIntervalMs: 200, onError: () => void writeErrors++ };

  // Warm-up (JIT, SQLite's page cache); its rows are counted apart.
  const warm = new UsageWriter(store, options);
  await feed(warm, Number(values['warmup-seconds']));
  await warm.close();
  const rowsBefore = await store.countUsage();

  const writer = new UsageWriter(store, options);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const stats = await feed(writer, Number(values.seconds));
  const tClose = performance.now();
  await writer.close();
  const t1 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const rows = (await store.countUsage()) - rowsBefore;
  await store.close();

  const wallS = (t1 - t0) / 1000;
  const result: UsageWriterResult = {
    added: stats.added,
    rows,
    lost: stats.added - rows,
    wallS,
    writtenPerS: rows / wallS,
    offeredPerS: stats.added / ((tClose - t0) / 1000),
    closeMs: t1 - tClose,
    maxPending: stats.maxPending,
    saturatedWaits: stats.saturatedWaits,
    writeErrors,
    cpuUsPerRecord: rows === 0 ? NaN : (cpu.user + cpu.system) / rows,
    maxRssKb: process.resourceUsage().maxRSS,
  };
  writeFileSync(values.out as string, `${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
