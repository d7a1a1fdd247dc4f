// The benchmark runner: `npm run bench [-- scenario ...]`. See bench/README.md.
//
// Starts the fake upstream, the gateway (built first) and the Portkey peer as separate processes on
// 127.0.0.1, runs each scenario against every target in turn (direct, gateway, peer; repeated BENCH_ROUNDS
// times), reads each process's CPU time and peak RSS from /proc, prints a markdown table and writes
// bench/results/<time>.json. Every child is killed on exit, on errors, on SIGINT/SIGTERM and at the deadline.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { runLoad, stopCurrentLoad, type LoadResult } from './lib/load.js';
import { CLK_TCK, cpuMicros, memory, resetPeakRss } from './lib/os-stats.js';
import { ProcessSet } from './lib/procs.js';
import { markdownTable, summarize, type Sample, type ScenarioTable, type TargetSummary } from './lib/report.js';
import { scenarios as allScenarios, type Scenario } from './scenarios.js';
import {
  ALL_TARGETS,
  BENCH_DIR,
  buildGateway,
  checkTarget,
  installPeer,
  PEER_PACKAGES,
  REPO_DIR,
  startFakeUpstream,
  startGateway,
  startPeer,
  type Target,
  type TargetName,
} from './targets.js';

// ---- settings (environment) ----

function envNumber(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, not "${v}"`);
  return n;
}

const ROUNDS = Math.max(1, Math.floor(envNumber('BENCH_ROUNDS', 3)));
/** Warm-up run per target and scenario before the measured rounds (JIT, connection pools). */
const WARMUP_S = envNumber('BENCH_WARMUP_S', 2);
/** Pause after each run before CPU is read again, so work that trails the responses (the gateway's usage
 * writer flushes every 200 ms) is charged to the run that caused it. */
const SETTLE_MS = 500;
const WANT_PEER = process.env['BENCH_PEER'] !== '0';
const SKIP_BUILD = process.env['BENCH_SKIP_BUILD'] === '1';
const KEEP_TMP = process.env['BENCH_KEEP_TMP'] === '1';
const UPDATE_README = process.env['BENCH_UPDATE_README'] === '1';

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

// ---- scenario selection ----

const available = allScenarios();
const requested = process.argv.slice(2).filter((a) => a !== '--');
const unknown = requested.filter((r) => !available.some((s) => s.name === r));
if (unknown.length > 0) {
  console.error(`unknown scenario(s): ${unknown.join(', ')}; available: ${available.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const selected: Scenario[] = requested.length === 0 ? available : available.filter((s) => requested.includes(s.name));
const targetFilter = (process.env['BENCH_TARGETS'] ?? '').split(',').filter((t) => t !== '');
const wantedTargets: TargetName[] = ALL_TARGETS.filter(
  (t) => (targetFilter.length === 0 || targetFilter.includes(t)) && (t !== 'peer' || WANT_PEER),
);

// ---- the deadline: the whole run is bounded, whatever happens ----

const perRunS = (s: Scenario): number => s.durationS + SETTLE_MS / 1000 + 1;
const estimateS =
  120 /* build, starts, peer install */ +
  selected.reduce((sum, s) => sum + wantedTargets.length * ((WARMUP_S + 1) + ROUNDS * perRunS(s)), 0);
const DEADLINE_S = envNumber('BENCH_DEADLINE_S', Math.ceil(estimateS * 1.5 + 60));

// ---- processes and cleanup ----

const tmpDir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
const procs = new ProcessSet(tmpDir, KEEP_TMP ? undefined : tmpDir);
let aborting: string | undefined;

function abort(reason: string): void {
  if (aborting !== undefined) return;
  aborting = reason;
  log(`stopping: ${reason}`);
  stopCurrentLoad();
}

process.on('exit', () => {
  procs.killAllNow();
  if (!KEEP_TMP) rmSync(tmpDir, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    if (aborting !== undefined) {
      // A second signal: no more waiting.
      process.exit(130);
    }
    abort(sig);
    // The main flow notices and cleans up; should it hang, this ends it.
    setTimeout(() => process.exit(130), 10_000).unref();
  });
}
const deadlineTimer = setTimeout(() => {
  abort(`deadline of ${DEADLINE_S} s reached (BENCH_DEADLINE_S)`);
  setTimeout(() => process.exit(3), 15_000).unref();
}, DEADLINE_S * 1000);
deadlineTimer.unref();

function checkAbort(): void {
  if (aborting !== undefined) throw new Error(`aborted: ${aborting}`);
}

// ---- one measured run ----

async function measure(target: Target, upstream: Target, scenario: Scenario, durationS: number, round: number): Promise<Sample> {
  const pid = target.child.pid;
  const peakIsPerRun = resetPeakRss(pid);
  const cpu0 = cpuMicros(pid);
  const up0 = cpuMicros(upstream.child.pid);
  const load: LoadResult = await runLoad({
    url: `${target.baseUrl}${scenario.path}`,
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: scenario.body,
    connections: scenario.connections,
    durationS,
    timeoutS: 10,
  });
  await sleep(SETTLE_MS);
  const cpu = cpuMicros(pid) - cpu0;
  const up = cpuMicros(upstream.child.pid) - up0;
  const mem = memory(pid);
  return {
    round,
    target: target.name,
    load,
    cpuUsPerReq: load.ok === 0 ? NaN : cpu / load.ok,
    upstreamCpuUsPerReq: load.ok === 0 ? NaN : up / load.ok,
    peakRssKb: mem.peakKb,
    peakRssIsPerRun: peakIsPerRun,
    rssAfterKb: mem.rssKb,
  };
}

function describeSample(s: Sample): string {
  const l = s.load;
  const fails = l.non2xx + l.errors + l.timeouts;
  return (
    `${s.target.padEnd(7)} round ${s.round}: ${Math.round(l.rps)} req/s, p50 ${l.latency.p50.toFixed(2)} ms, ` +
    `p99 ${l.latency.p99.toFixed(2)} ms, CPU ${s.cpuUsPerReq.toFixed(0)} µs/req` +
    (s.target === 'direct' ? '' : ` (upstream ${s.upstreamCpuUsPerReq.toFixed(0)})`) +
    `, peak RSS ${(s.peakRssKb / 1024).toFixed(0)} MB${fails > 0 ? `, FAILURES ${fails} ${JSON.stringify(l.statusCodes)} errors ${l.errors} timeouts ${l.timeouts}` : ''}`
  );
}

// ---- the run ----

interface ScenarioResult extends ScenarioTable {
  readonly rounds: number;
  readonly warmupS: number;
  readonly samples: readonly Sample[];
}

function gitRevision(): string {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_DIR, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'core', 'plugins', 'bin'], { cwd: REPO_DIR, encoding: 'utf8' }).trim();
    return dirty === '' ? rev : `${rev}+dirty`;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const notes: string[] = [];
  log(
    `scenarios: ${selected.map((s) => s.name).join(', ')}; targets: ${wantedTargets.join(', ')}; ` +
      `${ROUNDS} rounds; warm-up ${WARMUP_S} s; deadline ${DEADLINE_S} s; temp dir ${tmpDir}`,
  );

  if (!SKIP_BUILD && wantedTargets.includes('gateway')) {
    log('npm run build');
    buildGateway();
  }
  checkAbort();

  const upstream = await startFakeUpstream(procs);
  log(`fake upstream on ${upstream.baseUrl} (pid ${upstream.child.pid})`);
  const targets: Target[] = [];
  if (wantedTargets.includes('direct')) targets.push(upstream);
  let gateway: Target | undefined;
  if (wantedTargets.includes('gateway')) {
    gateway = await startGateway(procs, upstream.baseUrl, tmpDir);
    log(`gateway on ${gateway.baseUrl} (pid ${gateway.child.pid})`);
    targets.push(gateway);
  }
  if (wantedTargets.includes('peer')) {
    try {
      installPeer(log);
      checkAbort();
      const peer = await startPeer(procs, upstream.baseUrl);
      await checkTarget(peer, '/v1/chat/completions', selected[0]?.body ?? Buffer.from('{}'));
      log(`peer on ${peer.baseUrl} (pid ${peer.child.pid})`);
      targets.push(peer);
    } catch (err) {
      checkAbort();
      const msg = `peer (Portkey) not measured: ${(err as Error).message.split('\n')[0] ?? ''}`;
      notes.push(msg);
      log(msg);
      log(String((err as Error).message));
    }
  }
  if (notes.length === 0 && !wantedTargets.includes('peer')) notes.push('peer (Portkey) not measured: left out (BENCH_PEER=0 or BENCH_TARGETS)');

  const results: ScenarioResult[] = [];
  let gatewayOk = 0;
  for (const scenario of selected) {
    checkAbort();
    log(`== ${scenario.name}: ${scenario.description}; ${scenario.body.length} B; ${scenario.connections} connections; ${scenario.durationS} s x ${ROUNDS}`);
    for (const t of targets) {
      await checkTarget(t, scenario.path, scenario.body);
      if (t.name === 'gateway') gatewayOk++;
    }
    if (WARMUP_S > 0) {
      for (const t of targets) {
        checkAbort();
        const w = await measure(t, upstream, scenario, WARMUP_S, 0);
        if (t.name === 'gateway') gatewayOk += w.load.ok;
        log(`warm-up ${describeSample(w)}`);
      }
    }
    const samples: Sample[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of targets) {
        checkAbort();
        const s = await measure(t, upstream, scenario, scenario.durationS, round);
        if (t.name === 'gateway') gatewayOk += s.load.ok;
        samples.push(s);
        log(describeSample(s));
      }
    }
    const summary: TargetSummary[] = summarize(samples, targets.map((t) => t.name));
    results.push({
      name: scenario.name,
      description: scenario.description,
      connections: scenario.connections,
      durationS: scenario.durationS,
      bodyBytes: scenario.body.length,
      rounds: ROUNDS,
      warmupS: WARMUP_S,
      summary,
      samples,
    });
  }

  // Stop everything (the gateway flushes its usage records on SIGTERM), then count what it recorded.
  await procs.stopAll();
  let usageCheck: Record<string, number> | undefined;
  if (gateway !== undefined) {
    try {
      const db = new Database(join(tmpDir, 'gateway.db'), { readonly: true });
      const row = db
        .prepare('SELECT count(*) AS total, coalesce(sum(aborted), 0) AS aborted, coalesce(sum(CASE WHEN status = 200 AND aborted = 0 THEN 1 ELSE 0 END), 0) AS ok FROM usage_records')
        .get() as { total: number; aborted: number; ok: number };
      db.close();
      usageCheck = { clientOk: gatewayOk, records: row.total, recordsStatus200: row.ok, recordsAborted: row.aborted };
      const msg =
        `gateway usage records: ${row.total} (${row.ok} completed with status 200, ${row.aborted} aborted) for ${gatewayOk} 2xx responses seen by the client` +
        (row.ok >= gatewayOk ? '' : ` — ${gatewayOk - row.ok} MISSING`);
      notes.push(msg);
      log(msg);
    } catch (err) {
      notes.push(`gateway usage records could not be counted: ${(err as Error).message}`);
    }
  }

  const finishedAt = new Date();
  const peakPerRun = results.every((r) => r.samples.every((s) => s.peakRssIsPerRun));
  notes.push(
    peakPerRun
      ? 'peak RSS: VmHWM reset before each run (clear_refs), so it is the peak of that run'
      : 'peak RSS: VmHWM could not be reset, so it is the peak since the process started',
  );
  const file = {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memGb: Math.round(totalmem() / 2 ** 30),
      loadavg: loadavg(),
      node: process.version,
      clkTck: CLK_TCK,
    },
    revision: gitRevision(),
    settings: { rounds: ROUNDS, warmupS: WARMUP_S, settleMs: SETTLE_MS, targets: targets.map((t) => t.name), peer: PEER_PACKAGES },
    notes,
    usageCheck,
    scenarios: results,
  };
  const resultsDir = join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const resultFile = join(resultsDir, `${startedAt.toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z')}.json`);
  writeFileSync(resultFile, `${JSON.stringify(file, null, 2)}\n`);

  const markdown = [
    `Run of ${startedAt.toISOString()} (${file.revision}), ${file.machine.cpus} CPUs, Node ${process.version}, ` +
      `${ROUNDS} rounds per target, alternating; cells are median (min–max) over rounds.`,
    '',
    ...results.flatMap((r) => [markdownTable(r), '']),
    ...notes.map((n) => `- ${n}`),
  ].join('\n');
  process.stdout.write(`\n${markdown}\n`);
  log(`results written to ${resultFile}`);
  if (UPDATE_README) updateReadme(markdown);
  return 0;
}

/** Replaces the part of bench/README.md between the `bench:latest` markers with the table. */
function updateReadme(markdown: string): void {
  const file = join(BENCH_DIR, 'README.md');
  const text = readFileSync(file, 'utf8');
  const start = '<!-- bench:latest:start -->';
  const end = '<!-- bench:latest:end -->';
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i === -1 || j < i) {
    log('README.md has no bench:latest markers; not updated');
    return;
  }
  writeFileSync(file, `${text.slice(0, i + start.length)}\n${markdown}\n${text.slice(j)}`);
  log('bench/README.md updated');
}

main().then(
  async (code) => {
    await procs.stopAll(2000);
    process.exit(code);
  },
  async (err: unknown) => {
    log(`failed: ${err instanceof Error ? err.message : String(err)}`);
    await procs.stopAll(2000);
    process.exit(aborting !== undefined ? 130 : 1);
  },
);
