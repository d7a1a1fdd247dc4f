// One measured run of one leg: the target's CPU time and memory from /proc around the load the scenario's
// kind drives (autocannon, or our own client), reduced to a sample. Also the usage-writer child's run.

import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DrivenSample } from './lib/driven-report.js';
import { runLoad } from './lib/load.js';
import { cpuMicros, memory, resetPeakRss, tcpCounters, tcpCountersSince } from './lib/os-stats.js';
import type { DriveResult } from './lib/outcome-tally.js';
import { tail, type ProcessSet } from './lib/procs.js';
import type { Sample } from './lib/report.js';
import { closedLoop, openLoop } from './lib/request-load.js';
import type { RequestSpec } from './lib/timed-request.js';
import type { UsageWriterSample } from './lib/usage-writer-report.js';
import { API_PATH, STREAM_TERMINAL, type ClosedScenario, type DrivenScenario, type Leg, type StreamHoldScenario, type UsageWriterScenario } from './scenarios.js';
import { BENCH_DIR, legHeaders, REPO_DIR, type Target } from './targets.js';
import type { UsageWriterResult } from './usage-writer-load.js';

export interface RunContext {
  readonly upstream: Target;
  /** Pause after the load before CPU is read again, so trailing work (usage writer flushes) is charged. */
  readonly settleMs: number;
}

interface OsReading {
  readonly cpuUs: number;
  readonly upstreamCpuUs: number;
  readonly rssBeforeKb: number;
  readonly peakRssKb: number;
  readonly peakRssIsPerRun: boolean;
  readonly rssAfterKb: number;
}

/** Runs `load` between two readings of the target's (and the fake's) CPU and memory. */
async function withOsReadings<T>(target: Target, ctx: RunContext, load: () => Promise<T>, afterLoad?: () => Promise<void>): Promise<[T, OsReading]> {
  const pid = target.child.pid;
  const peakRssIsPerRun = resetPeakRss(pid);
  const rssBeforeKb = memory(pid).rssKb;
  const cpu0 = cpuMicros(pid);
  const up0 = cpuMicros(ctx.upstream.child.pid);
  const result = await load();
  await sleep(ctx.settleMs);
  if (afterLoad !== undefined) await afterLoad();
  const mem = memory(pid);
  return [
    result,
    {
      cpuUs: cpuMicros(pid) - cpu0,
      upstreamCpuUs: cpuMicros(ctx.upstream.child.pid) - up0,
      rssBeforeKb,
      peakRssKb: mem.peakKb,
      peakRssIsPerRun,
      rssAfterKb: mem.rssKb,
    },
  ];
}

export async function measureClosed(scenario: ClosedScenario, leg: Leg, target: Target, ctx: RunContext, durationS: number, round: number): Promise<Sample> {
  const [load, os] = await withOsReadings(target, ctx, () =>
    runLoad({
      url: `${target.baseUrl}${API_PATH[leg.api]}`,
      method: 'POST',
      headers: legHeaders(target, leg),
      body: leg.body,
      connections: scenario.connections,
      durationS,
      timeoutS: 10,
    }),
  );
  return {
    round,
    target: leg.name,
    load,
    cpuUsPerReq: load.ok === 0 ? NaN : os.cpuUs / load.ok,
    upstreamCpuUsPerReq: load.ok === 0 ? NaN : os.upstreamCpuUs / load.ok,
    peakRssKb: os.peakRssKb,
    peakRssIsPerRun: os.peakRssIsPerRun,
    rssAfterKb: os.rssAfterKb,
  };
}

/** Waits until the process uses under 10% of a core (or `limitMs` passes): a target still busy with the
 * last run (thousands of sockets closing) would otherwise charge it to the next one. */
async function quiesce(pid: number, limitMs: number): Promise<void> {
  const end = Date.now() + limitMs;
  let last = cpuMicros(pid);
  while (Date.now() < end) {
    await sleep(250);
    const now = cpuMicros(pid);
    if (now - last < 25_000) return;
    last = now;
  }
}

function requestSpec(leg: Leg, target: Target, timeoutMs: number): RequestSpec {
  const url = new URL(target.baseUrl);
  return {
    host: url.hostname,
    port: Number(url.port),
    path: API_PATH[leg.api],
    headers: legHeaders(target, leg),
    body: leg.body,
    ...(leg.stream === undefined ? {} : { terminal: STREAM_TERMINAL[leg.api] }),
    timeoutMs,
  };
}

/**
 * Runs the scenario's driver for `durationS` (stream-hold: its whole ramp and hold). A stream-hold warm-up
 * is the same stream without its pauses, 16 at a time for `durationS`: the hold itself is too long to repeat.
 */
function drive(
  scenario: DrivenScenario,
  leg: Leg,
  target: Target,
  durationS: number,
  expectedEvents: number | undefined,
  warmup: boolean,
): Promise<DriveResult> {
  if (warmup && scenario.kind === 'stream-hold' && leg.stream !== undefined) {
    const burst: Leg = { ...leg, stream: { ...leg.stream, delayMs: 0 } };
    return closedLoop({ spec: requestSpec(burst, target, 30_000), concurrency: 16, durationS, expectedEvents });
  }
  switch (scenario.kind) {
    case 'rate':
      return openLoop({
        spec: requestSpec(leg, target, 10_000),
        rate: scenario.rate,
        count: Math.max(1, Math.round(scenario.rate * durationS)),
        drainLimitMs: 10_000,
        expectedEvents,
      });
    case 'stream-closed':
      return closedLoop({ spec: requestSpec(leg, target, 30_000), concurrency: scenario.concurrency, durationS, expectedEvents });
    case 'stream-open':
      return openLoop({
        spec: requestSpec(leg, target, 30_000),
        rate: scenario.rate,
        count: Math.max(1, Math.round(scenario.rate * durationS)),
        drainLimitMs: 30_000,
        expectedEvents,
      });
    case 'stream-hold': {
      const streams = holdStreams(scenario, target);
      return openLoop({
        // The run's own limit (drainLimitS after the last open) stops streams first; this is a backstop.
        spec: requestSpec(leg, target, (scenario.rampS + scenario.drainLimitS + 30) * 1000),
        rate: streams / scenario.rampS,
        count: streams,
        drainLimitMs: scenario.drainLimitS * 1000,
        expectedEvents,
      });
    }
  }
}

/** Streams held through `target`: the peer gets fewer (see StreamHoldScenario.peerStreams). */
export function holdStreams(scenario: StreamHoldScenario, target: Target): number {
  return target.name === 'peer' ? scenario.peerStreams : scenario.streams;
}

export async function measureDriven(
  scenario: DrivenScenario,
  leg: Leg,
  target: Target,
  ctx: RunContext,
  durationS: number,
  /** 0 for the warm-up run. */
  round: number,
  expectedEvents: number | undefined,
): Promise<DrivenSample> {
  const afterHold = scenario.kind === 'stream-hold' ? () => quiesce(target.child.pid, 15_000) : undefined;
  const tcp0 = tcpCounters();
  const [result, os] = await withOsReadings(target, ctx, () => drive(scenario, leg, target, durationS, expectedEvents, round === 0), afterHold);
  const tcp = tcpCountersSince(tcp0);
  const perOk = (us: number): number => (result.ok === 0 ? NaN : us / result.ok);
  const cpuUsPerReq = perOk(os.cpuUs);
  return {
    round,
    leg: leg.name,
    target: target.name,
    drive: result,
    cpuUsPerReq,
    cpuUsPerChunk: leg.stream === undefined ? NaN : cpuUsPerReq / result.eventsPerOk,
    upstreamCpuUsPerReq: perOk(os.upstreamCpuUs),
    rssBeforeKb: os.rssBeforeKb,
    peakRssKb: os.peakRssKb,
    peakRssIsPerRun: os.peakRssIsPerRun,
    rssAfterKb: os.rssAfterKb,
    tcp,
  };
}

/** One round of the usage-writer scenario: bench/usage-writer-load.ts in a child process of its own. */
export async function runUsageWriterRound(scenario: UsageWriterScenario, procs: ProcessSet, tmpDir: string, round: number): Promise<UsageWriterSample> {
  const out = join(tmpDir, `usage-writer-${round}.json`);
  const db = join(tmpDir, `usage-writer-${round}.db`);
  const child = procs.spawn(
    `usage-writer-${round}`,
    process.execPath,
    [
      '--import',
      'tsx',
      join(BENCH_DIR, 'usage-writer-load.ts'),
      '--db',
      db,
      '--seconds',
      String(scenario.durationS),
      '--out',
      out,
    ],
    { cwd: REPO_DIR },
  );
  const timer = setTimeout(() => child.process.kill('SIGKILL'), (scenario.durationS + 60) * 1000);
  const code = await child.exited;
  clearTimeout(timer);
  // Hundreds of thousands of rows per round: not worth keeping in the temp dir.
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true });
  if (code !== 0) throw new Error(`usage-writer child exited with ${String(code)}\n${tail(child.logFile)}`);
  return { round, result: JSON.parse(readFileSync(out, 'utf8')) as UsageWriterResult };
}
