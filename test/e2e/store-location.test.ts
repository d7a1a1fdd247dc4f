// The CLI and the server agree on the store: a relative sqlite path is the config file's folder's, whatever the
// working directory, so a key created by `gateway keys create` run from elsewhere works on the running gateway.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { postChat } from '../helpers/chat-requests.js';
import { cliEnv, freePort, killIfRunning, runCli, spawnCli, waitForLog, type CliProcess } from '../helpers/cli-process.js';
import { withDeadline } from '../helpers/poll.js';

const POLL = { timeoutMs: 30_000, intervalMs: 25 };

let dir: string;
let elsewhere: string;
let configPath: string;
let server: CliProcess | undefined;
let url: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-store-'));
  elsewhere = await mkdtemp(join(tmpdir(), 'gw-elsewhere-'));
  configPath = join(dir, 'gateway.yaml');
  await writeFile(
    configPath,
    `server:
  host: 127.0.0.1
  shutdown_grace_ms: 5000
store:
  url: sqlite:./data/gateway.db
channels:
  - name: demo
    type: mock
    models: ["demo-*"]
groups:
  default:
    models: ["demo-*"]
`,
  );
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  // From the repository root: neither the config's folder nor the folder the CLI runs in below.
  server = spawnCli(['serve', '--config', configPath], cliEnv({ PORT: String(port), LOG_LEVEL: 'info' }));
  await waitForLog(server, 'gateway listening', POLL);
});

after(async () => {
  if (server !== undefined && server.proc.exitCode === null) {
    server.proc.kill('SIGTERM');
    await withDeadline(server.exited, 20_000, 'the gateway exited').catch(() => killIfRunning(server?.proc));
  }
  await rm(dir, { recursive: true, force: true });
  await rm(elsewhere, { recursive: true, force: true });
});

test('the server logs the store it opened: the absolute path in the config file\'s folder', () => {
  const line = server?.output.stderr.split('\n').find((l) => l.includes('"msg":"gateway listening"'));
  assert.ok(line !== undefined);
  const logged = JSON.parse(line) as { store?: string; config?: string };
  assert.equal(logged.store, `sqlite:${join(dir, 'data', 'gateway.db')}`);
  assert.equal(logged.config, configPath);
});

test('a key created by the CLI from another working directory works on the running gateway', async () => {
  // A relative --config too: it is taken from the CLI's working directory, the store path from the file's folder.
  const created = await runCli(['keys', 'create', '--name', 'from-elsewhere', '--group', 'default', '--config', relative(elsewhere, configPath)], cliEnv(), {
    cwd: elsewhere,
  });
  assert.equal(created.code, 0, created.stderr);
  const key = (JSON.parse(created.stdout) as { key: string }).key;
  assert.ok(created.stderr.includes(`sqlite:${join(dir, 'data', 'gateway.db')}`), `the CLI names the store it wrote to:\n${created.stderr}`);

  const res = await postChat(url, { model: 'demo-chat', messages: [{ role: 'user', content: 'hi' }] }, { key });
  const body = await res.text();
  assert.equal(res.status, 200, body);
  assert.match(body, /Hello from the mock channel!/);

  assert.ok(existsSync(join(dir, 'data', 'gateway.db')), 'the store lies under the config file\'s folder');
  assert.ok(!existsSync(join(elsewhere, 'data')), 'nothing was written in the CLI\'s working directory');
});
