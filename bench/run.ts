// The benchmark runner: `npm run bench [-- scenario ...]`. See bench/README.md.
//
// Starts the fake upstream, the gateway (built first) and the Portkey peer as separate processes on
// 127.0.0.1, runs each scenario's legs in turn (direct, gateway, peer, or a scenario's own variants; repeated
// BENCH_ROUNDS times), reads each process's CPU time and peak RSS from /proc, prints a markdown table per
// scenario and writes bench/results/<time>.json. Every child is killed on exit, on errors, on SIGINT/SIGTERM
// and at the deadline.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drivenMarkdown, failureCell, type DrivenSample } from './lib/driven-report.js';
import { stopCurrentLoad } from './lib/load.js';
import { CLK_TCK } from './lib/os-stats.js';
import { ProcessSet } from './lib/procs.js';
import { markdownTable, summarize, type Sample, type TargetSummary } from './lib/report.js';
import { stopCurrentDrive } from './lib/request-load.js';
import { usageWriterMarkdown, type UsageWriterSample } from './lib/usage-writer-report.js';
import { measureClosed, measureDriven, runUsageWriterRound, type RunContext } from './measure-run.js';
import { scenarios as allScenarios, smallChatBody, type Leg, type Scenario } from './scenarios.js';
import {
  ALL_TARGETS,
  BENCH_DIR,
  buildGateway,
  checkLeg,
  installPeer,
  PEER_PACKAGES,
  peerInstalled,
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
/** Warm-up run per leg and scenario before the measured rounds (JIT, connection pools); unset: each scenario's own. */
const WARMUP_OVERRIDE_S = process.env['BENCH_WARMUP_S'] === undefined || process.env['BENCH_WARMUP_S'] === '' ? undefined : envNumber('BENCH_WARMUP_S', 0);
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

const roundsOf = (s: Scenario): number => Math.max(1, s.rounds ?? ROUNDS);
const warmupOf = (s: Scenario): number => (s.kind === 'usage-writer' ? 0 : (WARMUP_OVERRIDE_S ?? s.warmupS));
/** Legs whose target is part of this run. */
const legsOf = (s: Scenario): readonly Leg[] => (s.kind === 'usage-writer' ? [] : s.legs.filter((l) => wantedTargets.includes(l.target)));
/** Expected seconds of one run (load, settle, set-up), for the plan and the deadline. */
function perRunS(s: Scenario, durationS: number, warmup = false): number {
  const settle = SETTLE_MS / 1000;
  switch (s.kind) {
    case 'closed':
      return durationS + settle + 1;
    case 'rate':
    case 'stream-closed':
      return durationS + settle + 0.3;
    case 'stream-open':
      return durationS + (s.legs[0]?.stream?.chunks ?? 0) * ((s.legs[0]?.stream?.delayMs ?? 0) / 1000) + settle + 0.3;
    case 'stream-hold':
      if (warmup) return durationS + settle + 0.3; // a closed loop of the stream without pauses
      // CPU-bound on 2 cores: the streams take 1.5-5x their nominal length (README).
      return s.rampS + (2.5 * (s.legs[0]?.stream?.chunks ?? 0) * (s.legs[0]?.stream?.delayMs ?? 0)) / 1000 + settle + 3;
    case 'usage-writer':
      return durationS + 2;
  }
}
function scenarioEstimateS(s: Scenario): number {
  if (s.kind === 'usage-writer') return roundsOf(s) * perRunS(s, s.durationS);
  const legs = legsOf(s).length;
  const warmup = warmupOf(s);
  const restart = s.freshProcesses === true ? 8 : 0;
  return restart + legs * ((warmup > 0 ? perRunS(s, warmup, true) : 0) + roundsOf(s) * perRunS(s, s.durationS));
}
/** Build (about 25 s), starting the processes, and the peer's npm install on first use. */
const SETUP_S = (SKIP_BUILD ? 5 : 30) + (wantedTargets.includes('peer') && !peerInstalled() ? 60 : 0);
const estimateS = SETUP_S + selected.reduce((sum, s) => sum + scenarioEstimateS(s), 0);
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
  stopCurrentDrive();
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

// ---- progress lines ----

const f1 = (v: number): string => (Number.isFinite(v) ? v.toFixed(v >= 100 ? 0 : 2) : '–');

function describeClosed(s: Sample): string {
  const l = s.load;
  const fails = l.non2xx + l.errors + l.timeouts;
  return (
    `${s.target.padEnd(12)} round ${s.round}: ${Math.round(l.rps)} req/s, p50 ${l.latency.p50.toFixed(2)} ms, ` +
    `p99 ${l.latency.p99.toFixed(2)} ms, CPU ${s.cpuUsPerReq.toFixed(0)} µs/req` +
    (s.target === 'direct' ? '' : ` (upstream ${s.upstreamCpuUsPerReq.toFixed(0)})`) +
    `, peak RSS ${(s.peakRssKb / 1024).toFixed(0)} MB${fails > 0 ? `, FAILURES ${fails} ${JSON.stringify(l.statusCodes)} errors ${l.errors} timeouts ${l.timeouts}` : ''}`
  );
}

function describeDriven(s: DrivenSample): string {
  const d = s.drive;
  const fails = failureCell([s]);
  return (
    `${s.leg.padEnd(12)} round ${s.round}: ${d.ok}/${d.started} ok, ${f1(d.okPerS)}/s, TTFB p50 ${f1(d.ttfb.p50)} p99 ${f1(d.ttfb.p99)} ms, ` +
    `total p50 ${f1(d.total.p50)} p99 ${f1(d.total.p99)} ms, send lag p99 ${f1(d.sendLag.p99)} ms, max open ${d.maxOpen} (in flight ${d.maxInFlight}), ` +
    `CPU ${f1(s.cpuUsPerReq)} µs/req` +
    (Number.isFinite(s.cpuUsPerChunk) ? ` (${f1(s.cpuUsPerChunk)} µs/chunk, ${f1(d.eventsPerOk)} events)` : '') +
    `, RSS ${(s.rssBeforeKb / 1024).toFixed(0)} -> peak ${(s.peakRssKb / 1024).toFixed(0)} MB` +
    (fails === '0'
      ? ''
      : `, FAILURES ${fails} status ${JSON.stringify(d.statusCodes)} errors ${JSON.stringify(d.errorCodes)} ` +
        `at p50 ${f1(d.failedAt.p50)} ms; TCP ${JSON.stringify(s.tcp)}`)
  );
}

// ---- the run ----

/** What the JSON file holds per scenario; `summary` and `samples` depend on the kind. */
interface ScenarioResult {
  readonly kind: Scenario['kind'];
  readonly name: string;
  readonly description: string;
  readonly durationS: number;
  readonly rounds: number;
  readonly warmupS: number;
  readonly legs: readonly { readonly name: string; readonly target: TargetName; readonly bodyBytes: number; readonly expectedEvents: number | undefined }[];
  readonly baseline?: string;
  readonly summary?: readonly TargetSummary[];
  readonly samples: readonly (Sample | DrivenSample | UsageWriterSample)[];
  readonly markdown: string;
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

interface Running {
  /** The fake upstream, also the `direct` target. */
  readonly upstream: Target;
  /** The targets measured, in the order they run. */
  readonly targets: readonly Target[];
}

/** Starts the fake, the gateway and the peer (those wanted); a peer that cannot start is noted and left out. */
async function startTargets(notes: string[]): Promise<Running> {
  const upstream = await startFakeUpstream(procs);
  log(`fake upstream on ${upstream.baseUrl} (pid ${upstream.child.pid})`);
  const targets: Target[] = [];
  if (wantedTargets.includes('direct')) targets.push(upstream);
  if (wantedTargets.includes('gateway')) {
    const gateway = await startGateway(procs, upstream.baseUrl, tmpDir, undefined, undefined, undefined, { billed: true });
    log(`gateway on ${gateway.baseUrl} (pid ${gateway.child.pid})`);
    targets.push(gateway);
  }
  if (wantedTargets.includes('peer')) {
    try {
      installPeer(log);
      checkAbort();
      const peer = await startPeer(procs, upstream.baseUrl);
      await checkLeg(peer, { name: 'peer', target: 'peer', api: 'chat', body: smallChatBody() });
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
  return { upstream, targets };
}

/** Stops the proxies first (the gateway flushes its usage records on SIGTERM), then the fake. */
async function stopTargets(running: Running): Promise<void> {
  for (const t of running.targets) if (t.name !== 'direct') await procs.stop(t.child);
  await procs.stop(running.upstream.child);
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const notes: string[] = [];
  log(
    `scenarios: ${selected.map((s) => s.name).join(', ')}; targets: ${wantedTargets.join(', ')}; ` +
      `${ROUNDS} rounds; warm-up ${WARMUP_OVERRIDE_S === undefined ? "each scenario's" : `${WARMUP_OVERRIDE_S} s`}; temp dir ${tmpDir}`,
  );
  log(
    `plan: about ${Math.round(estimateS)} s (${Math.round(SETUP_S)} s set-up, ` +
      `${selected.map((s) => `${s.name} ${Math.round(scenarioEstimateS(s))} s`).join(', ')}); deadline ${DEADLINE_S} s`,
  );

  if (!SKIP_BUILD && wantedTargets.includes('gateway')) {
    log('npm run build');
    buildGateway();
  }
  checkAbort();

  let running = await startTargets(notes);
  if (!wantedTargets.includes('peer')) notes.push('peer (Portkey) not measured: left out (BENCH_PEER=0 or BENCH_TARGETS)');
  const gatewayWanted = running.targets.some((t) => t.name === 'gateway');

  const results: ScenarioResult[] = [];
  /** Complete answers the client saw through the gateway (checks, warm-ups, runs): each needs a usage record. */
  let gatewayOk = 0;
  for (const scenario of selected) {
    checkAbort();
    const rounds = roundsOf(scenario);
    if (scenario.kind === 'usage-writer') {
      log(`== ${scenario.name}: ${scenario.description}; ${scenario.durationS} s x ${rounds}`);
      const samples: UsageWriterSample[] = [];
      for (let round = 1; round <= rounds; round++) {
        checkAbort();
        const s = await runUsageWriterRound(scenario, procs, tmpDir, round);
        samples.push(s);
        const r = s.result;
        log(
          `usage-writer round ${round}: ${Math.round(r.writtenPerS)} records/s written (${r.rows} rows in ${r.wallS.toFixed(2)} s), ` +
            `${Math.round(r.offeredPerS)}/s added, lost ${r.lost}, close ${r.closeMs.toFixed(1)} ms, max pending ${r.maxPending}, ` +
            `${r.cpuUsPerRecord.toFixed(1)} µs CPU/record`,
        );
      }
      results.push({
        kind: scenario.kind,
        name: scenario.name,
        description: scenario.description,
        durationS: scenario.durationS,
        rounds,
        warmupS: 0,
        legs: [],
        samples,
        markdown: usageWriterMarkdown(scenario.name, scenario.description, scenario.durationS, samples),
      });
      continue;
    }

    if (scenario.freshProcesses === true) {
      // Memory per stream is only meaningful against a process whose heap has not already grown (and kept
      // free space) through the earlier scenarios: every process starts again, on the same SQLite file.
      log('restarting every process for a clean memory baseline');
      await stopTargets(running);
      running = await startTargets([]);
    }
    const byName = new Map(running.targets.map((t) => [t.name, t]));
    const ctx: RunContext = { upstream: running.upstream, settleMs: SETTLE_MS };
    const warmupS = warmupOf(scenario);
    log(`== ${scenario.name}: ${scenario.description}; ${scenario.kind === 'stream-hold' ? 'one run' : `${scenario.durationS} s`} x ${rounds}, warm-up ${warmupS} s`);
    // Every leg answers once, correctly, before any load; a stream leg's event count is what every stream
    // of it must then have. A peer leg that fails is left out (the peer is optional); any other stops the run.
    const legs: { leg: Leg; target: Target; expectedEvents: number | undefined }[] = [];
    for (const leg of legsOf(scenario)) {
      const target = byName.get(leg.target);
      if (target === undefined) continue;
      try {
        const expectedEvents = await checkLeg(target, leg);
        legs.push({ leg, target, expectedEvents });
        if (target.name === 'gateway') gatewayOk++;
      } catch (err) {
        if (target.name !== 'peer') throw err;
        const msg = `${scenario.name}: peer left out: ${(err as Error).message.split('\n')[0] ?? ''}`;
        notes.push(msg);
        log(msg);
      }
    }
    const runLeg = async (l: (typeof legs)[number], durationS: number, round: number): Promise<Sample | DrivenSample> => {
      checkAbort();
      if (scenario.kind === 'closed') {
        const s = await measureClosed(scenario, l.leg, l.target, ctx, durationS, round);
        if (l.target.name === 'gateway') gatewayOk += s.load.ok;
        log(`${round === 0 ? 'warm-up ' : ''}${describeClosed(s)}`);
        return s;
      }
      const s = await measureDriven(scenario, l.leg, l.target, ctx, durationS, round, l.expectedEvents);
      if (l.target.name === 'gateway') gatewayOk += s.drive.ok;
      log(`${round === 0 ? 'warm-up ' : ''}${describeDriven(s)}`);
      return s;
    };
    if (warmupS > 0) for (const l of legs) await runLeg(l, warmupS, 0);
    const samples: (Sample | DrivenSample)[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const l of legs) samples.push(await runLeg(l, scenario.durationS, round));
    }

    const legNames = legs.map((l) => l.leg.name);
    const common = {
      kind: scenario.kind,
      name: scenario.name,
      description: scenario.description,
      durationS: scenario.durationS,
      rounds,
      warmupS,
      legs: legs.map((l) => ({ name: l.leg.name, target: l.target.name, bodyBytes: l.leg.body.length, expectedEvents: l.expectedEvents })),
      baseline: scenario.baseline,
      samples,
    };
    if (scenario.kind === 'closed') {
      const closedSamples = samples.filter((s): s is Sample => 'load' in s);
      const summary = summarize(closedSamples, legNames);
      const markdown = markdownTable({
        name: scenario.name,
        description: scenario.description,
        connections: scenario.connections,
        durationS: scenario.durationS,
        bodyBytes: legs[0]?.leg.body.length ?? 0,
        summary,
      });
      results.push({ ...common, summary, markdown });
    } else {
      const markdown = drivenMarkdown({
        kind: scenario.kind,
        name: scenario.name,
        description: scenario.description,
        durationS: scenario.kind === 'stream-hold' ? 0 : scenario.durationS,
        baseline: scenario.baseline,
        legs: legNames,
        samples: samples.filter((s): s is DrivenSample => 'drive' in s),
      });
      results.push({ ...common, markdown });
    }
  }

  // Stop everything (the gateway flushes its usage records on SIGTERM), then count what it recorded.
  await procs.stopAll();
  let usageCheck: Record<string, number> | undefined;
  if (gatewayWanted) {
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
  const peakPerRun = results.every((r) => r.samples.every((s) => !('peakRssIsPerRun' in s) || s.peakRssIsPerRun));
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
    wallS: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    settings: { rounds: ROUNDS, warmupOverrideS: WARMUP_OVERRIDE_S ?? null, settleMs: SETTLE_MS, targets: running.targets.map((t) => t.name), peer: PEER_PACKAGES },
    notes,
    usageCheck,
    scenarios: results,
  };
  const resultsDir = join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const resultFile = join(resultsDir, `${startedAt.toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z')}.json`);
  writeFileSync(resultFile, `${JSON.stringify(file, null, 2)}\n`);

  const otherRounds = results.filter((r) => r.rounds !== ROUNDS).map((r) => `${r.name}: ${r.rounds}`);
  const markdown = [
    `Run of ${startedAt.toISOString()} (${file.revision}), ${file.machine.cpus} CPUs, Node ${process.version}, ` +
      `${ROUNDS} rounds per target${otherRounds.length === 0 ? '' : ` (${otherRounds.join(', ')})`}, alternating; ` +
      `cells are median (min–max) over rounds; whole run ${Math.round(file.wallS)} s.`,
    '',
    ...results.flatMap((r) => [r.markdown, '']),
    ...notes.map((n) => `- ${n}`),
  ].join('\n');
  process.stdout.write(`\n${markdown}\n`);
  log(`results written to ${resultFile}; whole run ${Math.round(file.wallS)} s`);
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
