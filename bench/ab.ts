// A/B of two builds of the gateway under the same load at once: `npm run bench:ab -- <rev-a> <rev-b> [kind]`.
//
// Sequential runs of one build vary by ±20% on a shared VM, more than most single changes. Here both builds
// sit behind one fake upstream and get the same closed-loop load at the same time (half the connections
// each), so whatever slows the machine slows both; each round compares their CPU per request, and the start
// order alternates by round (the one started first gets a little more). An A/A run (the same revision twice)
// gives ratios of 0.95-1.03: differences of ~5% are visible.
//
// A revision is anything `git worktree add` takes (HEAD~1, a commit, a branch) or `.` for the work tree as
// it is. Each is built in its own worktree under the temp dir (the repo's node_modules linked in).
// kind: small (default; chat-small's body), billed (the same body for the priced model, with the metered key: both
// builds from issue 23 on), billed-vs-unmetered (one build given twice: a is chat-small's unmetered load, b the
// billed one, the gateways swapping loads every round: what billing costs, free of which gateway is favoured),
// limited-vs-unlimited (the same for rate limits: chat-small's body with a key all three kinds of limit apply to), stream (20-chunk streams), burst (200-chunk streams), paced
// (20-chunk streams, a chunk every 20 ms, 400 at once: each chunk its own read and write, as in stream-hold), large
// (chat-large's body), large-stream (the same streaming, 20 chunks, without stream_options: the gateway adds
// include_usage, an edit of the body), messages (the translation scenario's Claude Code body, 200-chunk streams, passed
// through), translate (the same on the chat channel: translated) and translate-small (translated, translation-small's
// one-turn body: the stream's own translation per chunk). BENCH_AB_ROUNDS (6) and
// BENCH_AB_SECONDS (4) set the rounds and their length; BENCH_GATEWAY_NODE_ARGS (space-separated) is given
// to both gateways' node (a profile: `--cpu-prof --cpu-prof-dir=/tmp/prof`). BENCH_AB_TELEMETRY (a, b or both) turns
// traces on in that gateway's config (every request, sample_ratio BENCH_TELEMETRY_RATIO or 1, exported to the fake's
// POST /v1/traces): what telemetry costs (`BENCH_AB_TELEMETRY=b npm run bench:ab -- . . small`).

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad, type LoadResult } from './lib/load.js';
import { cpuMicros } from './lib/os-stats.js';
import { ProcessSet, type Child } from './lib/procs.js';
import { API_PATH, BILLED_MODEL, CLAUDE_MODEL, largeChatBody, messagesBody, MODEL, smallChatBody, smallMessagesBody, type Api } from './scenarios.js';
import { anthropicClientHeaders, BILLED_KEY, GATEWAY_KEY, LIMITED_KEY, REPO_DIR, startFakeUpstream, startGateway } from './targets.js';

interface Kind {
  readonly api: Api;
  readonly body: Buffer;
  readonly connections: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Sent with the metered key of the billed config (both builds must know pricing: issue 23 on). */
  readonly billed?: true;
  /** The config declares the limited key (both builds must know limits: issue 24 on). */
  readonly limited?: true;
  /**
   * The cost of billing in one build: each round one gateway gets this body with the metered key and the other the
   * kind's body with the unmetered key, swapped every round (so whatever favours one gateway cancels out); the
   * ratio is billed over unmetered. (limited-vs-unlimited: the limited key instead of the metered one.)
   */
  readonly against?: { readonly body: Buffer; readonly key: string; readonly name: string };
}

const KINDS: Readonly<Record<string, () => Kind>> = {
  small: () => ({ api: 'chat', body: smallChatBody(), connections: 64, headers: {} }),
  billed: () => ({ api: 'chat', body: smallChatBody(false, BILLED_MODEL), connections: 64, headers: {}, billed: true }),
  'billed-vs-unmetered': () => ({ api: 'chat', body: smallChatBody(), connections: 64, headers: {}, billed: true, against: { body: smallChatBody(false, BILLED_MODEL), key: BILLED_KEY, name: 'billed' } }),
  'limited-vs-unlimited': () => ({ api: 'chat', body: smallChatBody(), connections: 64, headers: {}, limited: true, against: { body: smallChatBody(), key: LIMITED_KEY, name: 'limited' } }),
  stream: () => ({ api: 'chat', body: smallChatBody(true), connections: 64, headers: { 'x-fake-chunks': '20' } }),
  burst: () => ({ api: 'chat', body: smallChatBody(true), connections: 32, headers: { 'x-fake-chunks': '200' } }),
  paced: () => ({ api: 'chat', body: smallChatBody(true), connections: 400, headers: { 'x-fake-chunks': '20', 'x-fake-chunk-delay-ms': '20' } }),
  large: () => ({ api: 'chat', body: largeChatBody(), connections: 8, headers: {} }),
  'large-stream': () => ({ api: 'chat', body: largeChatBody(500 * 1024, true), connections: 8, headers: { 'x-fake-chunks': '20' } }),
  messages: () => ({ api: 'messages', body: messagesBody(CLAUDE_MODEL), connections: 8, headers: { 'x-fake-chunks': '200' } }),
  translate: () => ({ api: 'messages', body: messagesBody(MODEL), connections: 8, headers: { 'x-fake-chunks': '200' } }),
  'translate-small': () => ({ api: 'messages', body: smallMessagesBody(MODEL), connections: 8, headers: { 'x-fake-chunks': '200' } }),
};

const [revA, revB, kindName = 'small'] = process.argv.slice(2);
const makeKind = KINDS[kindName];
if (revA === undefined || revB === undefined || makeKind === undefined) {
  console.error(`usage: npm run bench:ab -- <rev-a> <rev-b> [${Object.keys(KINDS).join('|')}]`);
  process.exit(2);
}
const rounds = Number(process.env['BENCH_AB_ROUNDS'] ?? 6);
const seconds = Number(process.env['BENCH_AB_SECONDS'] ?? 4);
const kind = makeKind();
const authHeaders = (key: string): Record<string, string> => (kind.api === 'chat' ? { authorization: `Bearer ${key}` } : anthropicClientHeaders(key));
/** What one gateway is sent: the kind's load, or (billed-vs-unmetered) the metered one. */
interface Load {
  readonly body: Buffer;
  readonly key: string;
}
const plainLoad: Load = { body: kind.body, key: kind.billed === true && kind.against === undefined ? BILLED_KEY : GATEWAY_KEY };
const billedLoad: Load | undefined = kind.against === undefined ? undefined : { body: kind.against.body, key: kind.against.key };
if (billedLoad !== undefined && revA !== revB) {
  console.error(`${kindName} measures one build: give the same revision twice (npm run bench:ab -- HEAD HEAD ${kindName})`);
  process.exit(2);
}

/** The gateways whose config turns traces on. */
const telemetryOn = process.env['BENCH_AB_TELEMETRY'] ?? '';
if (!['', 'a', 'b', 'both'].includes(telemetryOn)) {
  console.error(`BENCH_AB_TELEMETRY is a, b or both, not "${telemetryOn}"`);
  process.exit(2);
}

const tmp = mkdtempSync(join(tmpdir(), 'gw-bench-ab-'));
const procs = new ProcessSet(tmp, tmp);
const worktrees: string[] = [];

/** A directory holding the revision's build (dist/, schemas/, node_modules). */
function build(rev: string, label: string): string {
  let dir = REPO_DIR;
  if (rev !== '.') {
    dir = join(tmp, `src-${label}`);
    execFileSync('git', ['worktree', 'add', '--detach', dir, rev], { cwd: REPO_DIR, stdio: 'ignore' });
    worktrees.push(dir);
    symlinkSync(join(REPO_DIR, 'node_modules'), join(dir, 'node_modules'));
  }
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });
  return dir;
}

/** The gateways started, stopped before the fake: a traced one's last export still reaches its collector (and a profile gets written). */
const gateways: Child[] = [];

async function startBuild(dir: string, label: string, upstreamUrl: string): Promise<{ url: string; pid: number }> {
  const home = join(tmp, `run-${label}`);
  mkdirSync(home);
  const traced = telemetryOn === 'both' || telemetryOn === label;
  const options = Object.assign({ billed: kind.billed === true, limited: kind.limited === true }, traced ? { telemetry: upstreamUrl } : {});
  const target = await startGateway(procs, upstreamUrl, home, dir, `gateway-${label}`, undefined, options);
  gateways.push(target.child);
  return { url: target.baseUrl, pid: target.child.pid };
}

function load(url: string, connections: number, durationS: number, what: Load = plainLoad): Promise<LoadResult> {
  return runLoad({
    url: `${url}${API_PATH[kind.api]}`,
    method: 'POST',
    headers: { ...authHeaders(what.key), 'content-type': 'application/json', ...kind.headers },
    body: what.body,
    connections,
    durationS,
    timeoutS: 10,
  });
}

const median = (values: readonly number[]): number => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? NaN;

try {
  const dirs = [build(revA, 'a'), build(revB, 'b')];
  const fake = await startFakeUpstream(procs);
  const targets = [await startBuild(dirs[0] as string, 'a', fake.baseUrl), await startBuild(dirs[1] as string, 'b', fake.baseUrl)];
  // Warm-up: JIT, pools, the SQLite file.
  await Promise.all(targets.map((t, i) => load(t.url, kind.connections / 2, 3, i === 1 ? billedLoad : undefined)));
  const ratios: number[] = [];
  const cpu: [number[], number[]] = [[], []];
  /** Each side's median latency per round, ms (what a shared limiter's round trip adds shows here). */
  const p50: [number[], number[]] = [[], []];
  for (let round = 0; round < rounds; round++) {
    const before = targets.map((t) => cpuMicros(t.pid));
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    // billed-vs-unmetered: gateway 1 takes the metered load in even rounds, gateway 0 in odd ones.
    const loads: Load[] = billedLoad === undefined ? [plainLoad, plainLoad] : round % 2 === 0 ? [plainLoad, billedLoad] : [billedLoad, plainLoad];
    const started = new Map(order.map((i) => [i, load((targets[i] as { url: string }).url, kind.connections / 2, seconds, loads[i])]));
    const results = await Promise.all([started.get(0), started.get(1)] as Promise<LoadResult>[]);
    // Work that trails the responses (the usage writer's flush) is counted too.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const measured = targets.map((t, i) => (cpuMicros(t.pid) - (before[i] as number)) / Math.max(1, (results[i] as LoadResult).ok));
    // Reported as a (the kind's load) and b (its metered load, or the other build).
    const perRequest = billedLoad !== undefined && round % 2 === 1 ? [measured[1], measured[0]] : measured;
    const failed = results.map((r) => r.non2xx + r.errors + r.timeouts);
    cpu[0].push(perRequest[0] as number);
    cpu[1].push(perRequest[1] as number);
    const latencies = results.map((r) => r.latency.p50);
    const ordered = billedLoad !== undefined && round % 2 === 1 ? [latencies[1], latencies[0]] : latencies;
    p50[0].push(ordered[0] as number);
    p50[1].push(ordered[1] as number);
    ratios.push((perRequest[1] as number) / (perRequest[0] as number));
    console.error(
      `round ${round + 1}: a ${(perRequest[0] as number).toFixed(1)} µs/req, b ${(perRequest[1] as number).toFixed(1)} µs/req, b/a ${(ratios.at(-1) as number).toFixed(3)}` +
        (failed.some((n) => n > 0) ? `, failures a ${failed[0]} b ${failed[1]}` : ''),
    );
  }
  if (telemetryOn !== '') console.log(`telemetry on in ${telemetryOn === 'both' ? 'a and b' : telemetryOn} (sample_ratio ${process.env['BENCH_TELEMETRY_RATIO'] ?? 1})`);
  console.log(billedLoad === undefined ? `${kindName}: a = ${revA}, b = ${revB}, ${rounds} rounds of ${seconds} s` : `${kindName}: ${revA}, a = ${kindName.split('-vs-')[1]}, b = ${kind.against?.name} (the two gateways swap loads every round), ${rounds} rounds of ${seconds} s`);
  console.log(`CPU per request, median: a ${median(cpu[0]).toFixed(1)} µs, b ${median(cpu[1]).toFixed(1)} µs`);
  console.log(`latency p50, median of rounds: a ${median(p50[0]).toFixed(2)} ms, b ${median(p50[1]).toFixed(2)} ms`);
  console.log(`b/a per round: median ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(3)).join(' ')})`);
} finally {
  await Promise.all(gateways.map((child) => procs.stop(child)));
  await procs.stopAll();
  for (const dir of worktrees) execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: REPO_DIR, stdio: 'ignore' });
  rmSync(tmp, { recursive: true, force: true });
}
