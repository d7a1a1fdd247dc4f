// The processes under test: the fake upstream (also the `direct` target), the gateway, and the Portkey peer.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, tail, waitForHttp, type Child, type ProcessSet } from './lib/procs.js';
import { countEventEnds } from './lib/timed-request.js';
import { API_PATH, BILLED_MODEL, STREAM_TERMINAL, type Leg } from './scenarios.js';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_DIR = dirname(BENCH_DIR);
export const PEER_DIR = join(BENCH_DIR, '.peer');

/** The key the fake upstream is given by every target (it does not check it). */
export const UPSTREAM_KEY = 'sk-upstream-bench-0000';
/** The gateway key declared in the generated config (unmetered). */
export const GATEWAY_KEY = 'sk-bench-0123456789abcdef';
/** The metered key of the billed config: its account, credited before the gateway starts, pays for BILLED_MODEL. */
export const BILLED_KEY = 'sk-bench-billed-0123456789ab';
/** The key of the limited config: every kind of limit applies to it, far above what a bench sends. */
export const LIMITED_KEY = 'sk-bench-limited-0123456789a';

/** What the generated config holds beside the channels and the unmetered key. */
export interface GatewayConfigOptions {
  /** Prices for BILLED_MODEL, an account and the metered key (a build that knows `pricing`, from issue 23 on). */
  readonly billed?: boolean;
  /** The limited key: rpm, tpm and concurrency all checked, none ever reached (a build that knows limits: issue 24 on). */
  readonly limited?: boolean;
  /**
   * Traces of every request (`telemetry:`, sample_ratio BENCH_TELEMETRY_RATIO or 1) sent to this OTLP/HTTP endpoint
   * (the fake's POST /v1/traces): a build that knows telemetry, issue 45 on.
   */
  readonly telemetry?: string;
}

export type TargetName = 'direct' | 'gateway' | 'peer';
export const ALL_TARGETS: readonly TargetName[] = ['direct', 'gateway', 'peer'];

export interface Target {
  readonly name: TargetName;
  readonly baseUrl: string;
  /** Headers every Chat Completions request to this target carries (auth, the peer's routing headers). */
  readonly headers: Readonly<Record<string, string>>;
  /** The same for Anthropic Messages requests (x-api-key and anthropic-version, as Anthropic clients send). */
  readonly messagesHeaders: Readonly<Record<string, string>>;
  /** The process whose CPU and memory are measured. */
  readonly child: Child;
}

export async function startFakeUpstream(procs: ProcessSet): Promise<Target> {
  const port = await freePort();
  const child = procs.spawn(
    'fake-upstream',
    process.execPath,
    ['--import', 'tsx', join(BENCH_DIR, 'fake-upstream.ts'), '--port', String(port)],
    { cwd: REPO_DIR, stdinPipe: true },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(child, `${baseUrl}/healthz`, 20_000);
  return {
    name: 'direct',
    baseUrl,
    headers: { authorization: `Bearer ${UPSTREAM_KEY}` },
    messagesHeaders: anthropicClientHeaders(UPSTREAM_KEY),
    child,
  };
}

/** `npm run build`, so dist/ is the code of the work tree. */
export function buildGateway(): void {
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPO_DIR, stdio: 'inherit', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`npm run build failed (${r.error?.message ?? `exit ${String(r.status ?? r.signal)}`})`);
}

/** What the Anthropic SDKs (and Claude Code) send with every Messages request. */
export function anthropicClientHeaders(key: string): Record<string, string> {
  return { 'x-api-key': key, 'anthropic-version': '2023-06-01' };
}

/**
 * The gateway's config: both channels on the fake (openai for `bench-*`, anthropic for `claude-bench-*`: a
 * Messages request for bench-model is translated to Chat, one for claude-bench-* passes through), a
 * declared key, SQLite in the run's temp dir.
 */
export function gatewayConfig(upstreamUrl: string, tmpDir: string, options: GatewayConfigOptions = {}): string {
  const billed =
    options.billed === true
      ? [
          'pricing:',
          '  models:',
          `    "${BILLED_MODEL}": { input: 0.50, output: 1.50, cache_read: 0.05 }`,
          'accounts:',
          '  - name: bench',
        ]
      : [];
  const billedKey = options.billed === true ? ['  - name: bench-billed', `    key: "${BILLED_KEY}"`, '    group: bench', '    account: bench'] : [];
  // BENCH_REDIS_URL: the limits shared through Redis (every gateway of the run on one prefix of its own).
  const redisUrl = process.env['BENCH_REDIS_URL'];
  const redis = options.limited === true && redisUrl !== undefined ? [`redis: { url: "${redisUrl}", prefix: "gwbench:${process.pid}:", on_failure: closed }`] : [];
  const limitedKey =
    options.limited === true
      ? ['  - name: bench-limited', `    key: "${LIMITED_KEY}"`, '    group: bench', '    limits: { rpm: 1000000000, tpm: 1000000000, concurrency: 1000000 }']
      : [];
  const telemetry =
    options.telemetry === undefined ? [] : ['telemetry:', `  otlp_endpoint: "${options.telemetry}"`, `  sample_ratio: ${Number(process.env['BENCH_TELEMETRY_RATIO'] ?? 1)}`];
  return [
    '# generated by bench/run.ts',
    'server:',
    '  host: 127.0.0.1',
    '  port: 8080 # overridden by PORT',
    '  shutdown_grace_ms: 3000',
    'store:',
    // BENCH_STORE_URL: another store (a PostgreSQL database of the run's own) instead of SQLite in the temp dir.
    `  url: "${process.env['BENCH_STORE_URL'] ?? `sqlite:${join(tmpDir, 'gateway.db')}`}"`,
    'channels:',
    '  - name: fake',
    '    type: openai',
    `    base_url: "${upstreamUrl}"`,
    `    keys: ["${UPSTREAM_KEY}"]`,
    '    models: ["bench-*"]',
    '  - name: fake-anthropic',
    '    type: anthropic',
    `    base_url: "${upstreamUrl}"`,
    `    keys: ["${UPSTREAM_KEY}"]`,
    '    models: ["claude-bench-*"]',
    'groups:',
    '  bench:',
    '    models: ["*"]',
    'keys:',
    '  - name: bench',
    `    key: "${GATEWAY_KEY}"`,
    '    group: bench',
    ...billedKey,
    ...limitedKey,
    ...billed,
    ...redis,
    ...telemetry,
    '',
  ].join('\n');
}

/**
 * The node flags of `npm start` (package.json), so the gateway is measured as it is run: they are part of
 * how it performs (`--no-memory-reducer`: README, "Run it"). The script starts with `exec` (so npm's signals reach
 * the gateway, not a shell); builds from before that have none, and bench:ab may run one.
 */
function startScriptNodeFlags(buildDir: string): string[] {
  const pkg = JSON.parse(readFileSync(join(buildDir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const words = (pkg.scripts?.['start'] ?? '').split(/\s+/);
  const node = words[0] === 'exec' ? 1 : 0;
  const script = words.indexOf('dist/bin/gateway.js');
  if (words[node] !== 'node' || script === -1) {
    throw new Error(`package.json's start script is not "[exec] node [flags] dist/bin/gateway.js ...": ${pkg.scripts?.['start']}`);
  }
  return words.slice(node + 1, script);
}

/**
 * `buildDir` holds the build to run (dist/, schemas/, node_modules): this repo's, or a worktree's (bench/ab.ts);
 * `nodeArgs` go to node before the script (a profile, GC flags); by default BENCH_GATEWAY_NODE_ARGS (space-separated).
 */
export async function startGateway(
  procs: ProcessSet,
  upstreamUrl: string,
  tmpDir: string,
  buildDir = REPO_DIR,
  processName = 'gateway',
  nodeArgs: readonly string[] = (process.env['BENCH_GATEWAY_NODE_ARGS'] ?? '').split(/\s+/).filter((a) => a !== ''),
  options: GatewayConfigOptions = {},
): Promise<Target> {
  const startFlags = startScriptNodeFlags(buildDir);
  const configFile = join(tmpDir, 'gateway.yaml');
  writeFileSync(configFile, gatewayConfig(upstreamUrl, tmpDir, options));
  if (options.billed === true) {
    // A balance no run spends: far from zero, as a metered key's requests are admitted against the instance's holds.
    const credit = spawnSync(process.execPath, [join(buildDir, 'dist/bin/gateway.js'), 'accounts', 'credit', 'bench', '1000000', '--idempotency-key', 'bench', '--config', configFile], {
      cwd: tmpDir,
      encoding: 'utf8',
    });
    if (credit.status !== 0) throw new Error(`crediting the bench account failed: ${credit.stderr}`);
  }
  const port = await freePort();
  const child = procs.spawn(processName, process.execPath, [...startFlags, ...nodeArgs, join(buildDir, 'dist/bin/gateway.js'), 'serve', '--config', configFile], {
    cwd: tmpDir,
    env: { ...process.env, PORT: String(port) },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(child, `${baseUrl}/healthz`, 30_000);
  return {
    name: 'gateway',
    baseUrl,
    headers: { authorization: `Bearer ${GATEWAY_KEY}` },
    messagesHeaders: anthropicClientHeaders(GATEWAY_KEY),
    child,
  };
}

/** The peer's npm packages; @hono/node-server is pinned because newer ones fail every stream on Node 20. */
export const PEER_PACKAGES = {
  '@portkey-ai/gateway': process.env['BENCH_PEER_VERSION'] ?? '1.15.2',
  '@hono/node-server': '1.13.8',
} as const;

const PEER_ENTRY = join(PEER_DIR, 'node_modules/@portkey-ai/gateway/build/start-server.js');
// Portkey listens on every interface; this preload binds whatever it listens on to 127.0.0.1 instead.
const PEER_LOOPBACK = join(PEER_DIR, 'loopback-only.mjs');
const PEER_LOOPBACK_SOURCE = `// generated by bench/targets.ts: bind every TCP listener of this process to 127.0.0.1
import net from 'node:net';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\\d+$/.test(args[0]))) {
    const cb = args.find((a) => typeof a === 'function');
    return cb === undefined ? listen.call(this, Number(args[0]), '127.0.0.1') : listen.call(this, Number(args[0]), '127.0.0.1', cb);
  }
  if (args[0] !== null && typeof args[0] === 'object' && args[0].path === undefined) args[0] = { ...args[0], host: '127.0.0.1' };
  return listen.apply(this, args);
};
`;

/** Whether some version of the peer is installed (for the plan's estimate; installPeer checks versions). */
export function peerInstalled(): boolean {
  return existsSync(PEER_ENTRY);
}

/** Installs the peer into bench/.peer/ unless the pinned versions are there already. */
export function installPeer(log: (line: string) => void): void {
  const manifest = {
    private: true,
    description: 'installed by bench/run.ts: the peer gateway the benchmark compares against',
    dependencies: PEER_PACKAGES,
    overrides: { '@hono/node-server': PEER_PACKAGES['@hono/node-server'] },
  };
  const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
  const manifestFile = join(PEER_DIR, 'package.json');
  const installed = (name: string): string | undefined => {
    try {
      return (JSON.parse(readFileSync(join(PEER_DIR, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string }).version;
    } catch {
      return undefined;
    }
  };
  mkdirSync(PEER_DIR, { recursive: true });
  writeFileSync(PEER_LOOPBACK, PEER_LOOPBACK_SOURCE);
  const upToDate =
    existsSync(PEER_ENTRY) &&
    existsSync(manifestFile) &&
    readFileSync(manifestFile, 'utf8') === manifestText &&
    Object.entries(PEER_PACKAGES).every(([name, version]) => installed(name) === version);
  if (upToDate) return;
  writeFileSync(manifestFile, manifestText);
  log(`installing the peer (${Object.entries(PEER_PACKAGES).map(([n, v]) => `${n}@${v}`).join(', ')}) into bench/.peer/ ...`);
  const r = spawnSync('npm', ['install', '--prefix', PEER_DIR, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
    cwd: PEER_DIR,
    encoding: 'utf8',
    timeout: 240_000,
  });
  if (r.status !== 0 || !existsSync(PEER_ENTRY)) {
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-10).join('\n');
    throw new Error(`npm install of the peer failed (${r.error?.message ?? `exit ${String(r.status ?? r.signal)}`})\n${out}`);
  }
}

export async function startPeer(procs: ProcessSet, upstreamUrl: string): Promise<Target> {
  const port = await freePort();
  const child = procs.spawn('peer', process.execPath, ['--import', PEER_LOOPBACK, PEER_ENTRY, `--port=${port}`, '--headless'], {
    cwd: PEER_DIR,
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(child, `${baseUrl}/`, 30_000);
  } catch (err) {
    await procs.stop(child, 1000);
    throw err;
  }
  const customHost = `${upstreamUrl}/v1`;
  return {
    name: 'peer',
    baseUrl,
    headers: { authorization: `Bearer ${UPSTREAM_KEY}`, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': customHost },
    // Portkey serves /v1/messages with its anthropic provider, which forwards the body to the custom host.
    messagesHeaders: { ...anthropicClientHeaders(UPSTREAM_KEY), 'x-portkey-provider': 'anthropic', 'x-portkey-custom-host': customHost },
    child,
  };
}

/** Every header of a leg's requests to `target`. */
export function legHeaders(target: Target, leg: Leg): Record<string, string> {
  const headers: Record<string, string> = { ...(leg.api === 'chat' ? target.headers : target.messagesHeaders), 'content-type': 'application/json' };
  if (leg.billed === true) headers['authorization'] = `Bearer ${BILLED_KEY}`;
  if (leg.stream !== undefined) {
    headers['x-fake-chunks'] = String(leg.stream.chunks);
    headers['x-fake-chunk-delay-ms'] = String(leg.stream.delayMs);
    // The gateway forwards end-to-end headers; Portkey only those it is told to.
    if (target.name === 'peer') headers['x-portkey-forward-headers'] = 'x-fake-chunks,x-fake-chunk-delay-ms';
  }
  return headers;
}

/**
 * One request of the leg: it must answer 200, with usage in a JSON body, or a stream ending with its API's
 * terminal event. Returns the SSE events of that stream (what every stream of the leg must then have), or
 * undefined for JSON replies.
 */
export async function checkLeg(target: Target, leg: Leg): Promise<number | undefined> {
  const path = API_PATH[leg.api];
  // The same stream without the pauses between chunks: the event count is the same, the check quick.
  const quick: Leg = leg.stream === undefined ? leg : { ...leg, stream: { ...leg.stream, delayMs: 0 } };
  const res = await fetch(`${target.baseUrl}${path}`, {
    method: 'POST',
    headers: legHeaders(target, quick),
    body: leg.body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  const complete = leg.stream === undefined ? text.includes('"usage"') : text.trimEnd().endsWith(STREAM_TERMINAL[leg.api]);
  if (res.status !== 200 || !complete) {
    throw new Error(`${leg.name}: POST ${path} answered ${res.status}: ${text.slice(0, 300)}\n${tail(target.child.logFile, 10)}`);
  }
  return leg.stream === undefined ? undefined : countEventEnds(Buffer.from(text), false);
}
