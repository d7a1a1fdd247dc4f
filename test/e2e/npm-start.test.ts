// `npm start`, the README's run command, under a parent that signals it: SIGTERM to npm's pid (what a process
// manager does) and SIGINT to its process group (Ctrl-C in a terminal) stop the gateway itself, within the grace
// period, with its usage written; no gateway is left behind serving the port. Under `npm test`, which has built dist/
// already, without its prestart build (test/architecture/build-script.test.ts checks that prestart is that build).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { postChat } from '../helpers/chat-requests.js';
import { cliEnv, collectOutput, freePort, waitForLog, type CliExit, type CliProcess } from '../helpers/cli-process.js';
import { readUsageFile } from '../helpers/gateway-under-test.js';
import { until, withDeadline } from '../helpers/poll.js';
import { commandLine, descendantPids, isAlive } from '../helpers/process-tree.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const GRACE_MS = 5000;
const KEY = 'sk-npm-start-0123456789abcdef';
/** `npm start` alone (not under `npm test`) builds first (prestart: tsc), slowly on a busy machine. */
const STARTUP = { timeoutMs: 180_000, intervalMs: 50 };

/** Every process these tests started, so a failing test leaves none running. */
const started: number[] = [];
const dirs: string[] = [];

after(async () => {
  for (const pid of started.reverse()) {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface NpmStart {
  readonly npm: CliProcess;
  readonly npmPid: number;
  readonly gatewayPid: number;
  readonly port: number;
  readonly dbPath: string;
}

/** `npm start` from the repository root, in a process group of its own, on a temp config (GATEWAY_CONFIG, PORT). */
async function startNpm(): Promise<NpmStart> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-npm-start-'));
  dirs.push(dir);
  const dbPath = join(dir, 'usage.db');
  const configPath = join(dir, 'gateway.yaml');
  await writeFile(
    configPath,
    `server:
  host: 127.0.0.1
  shutdown_grace_ms: ${GRACE_MS}
store:
  url: sqlite:${dbPath}
channels:
  - name: demo
    type: mock
    models: ["demo-*"]
groups:
  default:
    models: ["demo-*"]
keys:
  - name: npm-start
    key: ${KEY}
    group: default
`,
  );
  const port = await freePort();
  const env = { ...cliEnv({ PORT: String(port), LOG_LEVEL: 'info' }), GATEWAY_CONFIG: configPath };
  // A build here would rewrite dist/ under the other test files' feet.
  const args = process.env['GATEWAY_TEST_BUILT'] === '1' ? ['start', '--ignore-scripts'] : ['start'];
  const npm = collectOutput(spawn('npm', args, { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }));
  const npmPid = npm.proc.pid;
  assert.ok(npmPid !== undefined, 'npm started');
  started.push(npmPid);
  await waitForLog(npm, 'gateway listening', STARTUP);
  const tree = descendantPids(npmPid);
  started.push(...tree);
  const gatewayPid = tree.find((pid) => commandLine(pid).includes('dist/bin/gateway.js serve'));
  assert.ok(gatewayPid !== undefined, `the gateway among npm's processes: ${tree.map(commandLine).join(' | ')}`);
  assert.match(commandLine(gatewayPid), /--enable-source-maps --no-memory-reducer/, 'with the start script\'s node flags');
  return { npm, npmPid, gatewayPid, port, dbPath };
}

/** One chat request on the mock channel; its request id, to be found in the store after the stop. */
async function chatOnce(port: number): Promise<string> {
  const res = await postChat(`http://127.0.0.1:${port}`, { model: 'demo-chat', messages: [{ role: 'user', content: 'hi' }] }, { key: KEY });
  assert.equal(res.status, 200, await res.text());
  const id = res.headers.get('x-request-id');
  assert.ok(id !== null);
  return id;
}

/** Whether a connect to the loopback port is refused (nothing listens). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/** Binds the port and lets it go again: fails while anything else holds it. */
async function listenOnce(port: number): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** After the signal: the port is free within the grace period, npm exits 0, no gateway is left, the usage is in the store. */
async function assertStoppedCleanly(run: NpmStart, requestId: string, signal: NodeJS.Signals): Promise<void> {
  await until(`port ${run.port} refusing connections within the grace period`, async () => ((await refused(run.port)) ? true : undefined), {
    timeoutMs: GRACE_MS,
    intervalMs: 25,
  });
  const exit = await withDeadline<CliExit>(run.npm.exited, GRACE_MS + 10_000, 'npm exited');
  // npm exits with its child's status, and kills itself with the child's signal when the child died of one.
  assert.deepEqual(exit, { code: 0, signal: null }, `${run.npm.output.stdout}\n${run.npm.output.stderr}`);
  await until('the gateway process gone', () => (isAlive(run.gatewayPid) ? undefined : true), { timeoutMs: 2000, intervalMs: 25 });
  await listenOnce(run.port);
  assert.match(run.npm.output.stderr, new RegExp(`"signal":"${signal}"[^\\n]*"msg":"shutting down"`), 'the gateway itself got the signal');
  const records = await readUsageFile(run.dbPath);
  assert.deepEqual(
    records.map((r) => [r.requestId, r.status, r.keyName]),
    [[requestId, 200, 'npm-start']],
  );
}

test('SIGTERM to the npm process stops the gateway: port free within the grace, usage flushed, nothing left running', async () => {
  const run = await startNpm();
  // The console's pages, built with the gateway, are served on its own port.
  const page = await fetch(`http://127.0.0.1:${run.port}/console/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<script [^>]*src="\/console\/static\/app\.js"/);
  const script = await fetch(`http://127.0.0.1:${run.port}/console/static/app.js`);
  assert.deepEqual([script.status, script.headers.get('content-type')], [200, 'text/javascript; charset=utf-8']);
  await script.arrayBuffer();
  const requestId = await chatOnce(run.port);
  process.kill(run.npmPid, 'SIGTERM');
  await assertStoppedCleanly(run, requestId, 'SIGTERM');
});

test('Ctrl-C (SIGINT to the process group) stops the gateway once, cleanly, though npm forwards it a second time', async () => {
  const run = await startNpm();
  const requestId = await chatOnce(run.port);
  process.kill(-run.npmPid, 'SIGINT');
  await assertStoppedCleanly(run, requestId, 'SIGINT');
});
