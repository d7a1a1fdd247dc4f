// GET /readyz for load balancers: 200 while the store (and Redis, when configured) answer and the instance is not
// draining; on SIGTERM it turns 503 first, for server.drain_delay_ms, while requests are still served, and only then
// does the instance drain and exit. /healthz stays "alive" throughout.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cliEnv, freePort, spawnCli, waitForLog } from '../helpers/cli-process.js';
import { configWith, startGatewayUnderTest, TEST_KEY } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';

const MOCK = `  - name: demo
    type: mock
    models: ["demo-*"]
`;

async function readyz(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function chat(url: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'demo-chat', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('/readyz', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  test('SIGTERM: /readyz turns 503 at once while requests are still served, then the instance drains and exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-readyz-'));
    dirs.push(dir);
    const configPath = join(dir, 'gateway.yaml');
    await writeFile(configPath, configWith(MOCK).replace('shutdown_grace_ms: 5000', 'shutdown_grace_ms: 5000\n  drain_delay_ms: 1500'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const cli = spawnCli(['serve', '--config', configPath], cliEnv({ PORT: String(port), LOG_LEVEL: 'info' }));
    try {
      await waitForLog(cli, 'gateway listening', { timeoutMs: 30_000, intervalMs: 50 });
      assert.deepEqual(await readyz(url), { status: 200, body: { status: 'ready', store: 'ok', redis: 'none' } });
      const signalledAt = Date.now();
      cli.proc.kill('SIGTERM');
      const draining = await until('readyz 503', async () => {
        const answer = await readyz(url);
        return answer.status === 503 ? answer : undefined;
      }, { timeoutMs: 1000, intervalMs: 20 });
      assert.equal(draining.body['status'], 'draining');
      // Still served meanwhile: a load balancer that has not seen the 503 yet loses nothing.
      assert.equal(await chat(url), 200);
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      assert.ok(Date.now() - signalledAt < 1400, 'the checks above ran within the delay');
      const exit = await cli.exited;
      assert.deepEqual(exit, { code: 0, signal: null });
      assert.ok(Date.now() - signalledAt >= 1500, 'the drain waited for the delay');
      assert.match(cli.output.stderr + cli.output.stdout, /not ready any more/);
    } finally {
      if (cli.proc.exitCode === null) cli.proc.kill('SIGKILL');
    }
  });

  test('503 when the store does not answer, and the store is asked at most once a second however often it is called', async () => {
    const gw = await startGatewayUnderTest(configWith(MOCK));
    try {
      const store = gw.gateway.runtime.deps.store;
      const ping = store.ping.bind(store);
      let pings = 0;
      let failing = false;
      Object.assign(store, {
        ping: async () => {
          pings++;
          if (failing) throw new Error('connection refused');
          await ping();
        },
      });
      // Probes answer from the answer cached at start until it is a second old; then one asks the store again.
      const SOON = { timeoutMs: 5000, intervalMs: 50 };
      await until('a probe asks the store', async () => ((await readyz(gw.url)).status === 200 && pings === 1 ? true : undefined), SOON);
      const answers = await Promise.all(Array.from({ length: 50 }, () => readyz(gw.url)));
      assert.ok(answers.every((a) => a.status === 200));
      assert.equal(pings, 1, 'one store round trip for 50 probes');
      failing = true;
      const down = await until('a probe sees the store down', async () => {
        const answer = await readyz(gw.url);
        return answer.status === 503 ? answer : undefined;
      }, SOON);
      assert.deepEqual(down, { status: 503, body: { status: 'unavailable', store: 'down', redis: 'none' } });
      assert.equal(pings, 2, 'the probes of the second before it were answered from the cache');
      failing = false;
      await until('a probe sees the store back', async () => ((await readyz(gw.url)).status === 200 ? true : undefined), SOON);
      assert.equal(pings, 3);
    } finally {
      await gw.stop();
    }
  });

  test('503 while the configured Redis is not connected', async () => {
    // A port that accepts nothing: the gateway starts (Redis is not waited for long) and stays unready.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const gw = await startGatewayUnderTest(configWith(MOCK, `redis:\n  url: redis://127.0.0.1:${port}\n  prefix: "readyz-test-${process.pid}:"\n`));
    try {
      assert.deepEqual(await readyz(gw.url), { status: 503, body: { status: 'unavailable', store: 'ok', redis: 'down' } });
      assert.equal((await fetch(`${gw.url}/healthz`)).status, 200, 'alive all the same');
    } finally {
      await gw.stop();
    }
  });
});
