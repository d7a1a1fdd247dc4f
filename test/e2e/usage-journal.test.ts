// PostgreSQL goes away under a running gateway (a TCP proxy between them is cut): requests on unmetered keys are
// still answered, their usage records go to the local journal, the gateway stops cleanly (exit 0) with them
// there, and the next start on the same journal, PostgreSQL back, writes every one of them exactly once.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { UsageJournal } from '../../core/store/usage-journal.js';
import { cliEnv, freePort, killIfRunning, spawnCli, waitForLog, type CliProcess } from '../helpers/cli-process.js';
import { configWith, TEST_KEY } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { storeBackends } from '../helpers/test-stores.js';

const MOCK = `  - name: demo
    type: mock
    models: ["demo-*"]
    assets: true
`;
const WAIT = { timeoutMs: 30_000, intervalMs: 50 };

const postgres = storeBackends().find((b) => b.name === 'postgres');

async function chat(url: string): Promise<{ status: number; id: string }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'demo-chat', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.arrayBuffer();
  return { status: response.status, id: response.headers.get('x-request-id') ?? '' };
}

describe('usage records while PostgreSQL is down', { skip: postgres?.skip }, () => {
  let db: { readonly url: string; cleanup(): Promise<void> };
  let proxy: TcpProxy;
  let dir: string;
  let client: pg.Client;
  const processes: CliProcess[] = [];
  before(async () => {
    db = await (postgres as NonNullable<typeof postgres>).fresh();
    const target = new URL(db.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    dir = await mkdtemp(join(tmpdir(), 'gw-journal-e2e-'));
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  after(async () => {
    for (const p of processes) killIfRunning(p.proc);
    await client.end();
    await proxy.close();
    await db.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  async function stored(): Promise<Map<string, number>> {
    const rows = await client.query<{ request_id: string; n: string }>('SELECT request_id, count(*) AS n FROM usage_records GROUP BY request_id');
    return new Map(rows.rows.map((r) => [r.request_id, Number(r.n)]));
  }

  async function serve(configPath: string): Promise<{ cli: CliProcess; url: string }> {
    const port = await freePort();
    const cli = spawnCli(['serve', '--config', configPath], cliEnv({ PORT: String(port), LOG_LEVEL: 'info' }));
    processes.push(cli);
    await waitForLog(cli, 'gateway listening', WAIT);
    return { cli, url: `http://127.0.0.1:${port}` };
  }

  test('are journaled, survive the stop, and are written once by the next start', async () => {
    const proxied = new URL(db.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const configPath = join(dir, 'gateway.yaml');
    const yaml = configWith(MOCK).replace('url: sqlite:./gateway.db', `url: "${proxied.href}"\n  journal_path: ./journal/usage.db`);
    await writeFile(configPath, yaml);

    const first = await serve(configPath);
    const before = await Promise.all(Array.from({ length: 3 }, () => chat(first.url)));
    assert.deepEqual(before.map((r) => r.status), [200, 200, 200]);
    await until('the first records in PostgreSQL', async () => ((await stored()).size === 3 ? true : undefined), WAIT);

    proxy.cut();
    const during: { status: number; id: string }[] = [];
    for (let i = 0; i < 20; i++) during.push(await chat(first.url));
    assert.deepEqual(
      during.map((r) => r.status),
      during.map(() => 200),
      'unmetered requests are answered while PostgreSQL is down',
    );
    await waitForLog(first.cli, 'writing usage records failed; they stay queued', WAIT);
    // A request that needs the store itself (a video task is a row) is a 503 to retry, not a 500: nothing was done.
    const video = await fetch(`${first.url}/v1/video/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-video', prompt: 'while the store is away' }),
    });
    assert.equal(video.status, 503);
    assert.equal(video.headers.get('retry-after'), '1');
    const refused = (await video.json()) as { error: { code: string; type: string } };
    assert.equal(refused.error.code, 'store_unavailable');
    during.push({ status: 503, id: video.headers.get('x-request-id') ?? '' });

    first.cli.proc.kill('SIGTERM');
    assert.deepEqual(await first.cli.exited, { code: 0, signal: null }, first.cli.output.stderr);
    assert.match(first.cli.output.stderr, /usage records wait in the journal for the next start/);
    const journal = new UsageJournal(join(dir, 'journal', 'usage.db'));
    assert.deepEqual(
      journal.peek(100).map((e) => e.record.requestId),
      during.map((r) => r.id),
      'every record of the outage is in the journal, in order',
    );
    journal.close();
    assert.equal((await stored()).size, 3);

    proxy.restore();
    const second = await serve(configPath);
    assert.match(second.cli.output.stderr, /writing the usage records an earlier run left in the journal/);
    const all = [...before, ...during].map((r) => r.id);
    const written = await until('the journaled records in PostgreSQL', async () => {
      const rows = await stored();
      return rows.size === all.length ? rows : undefined;
    }, WAIT);
    assert.deepEqual([...written.keys()].sort(), [...all].sort());
    assert.ok([...written.values()].every((n) => n === 1), 'each record once');
    second.cli.proc.kill('SIGTERM');
    assert.deepEqual(await second.cli.exited, { code: 0, signal: null }, second.cli.output.stderr);
    const emptied = new UsageJournal(join(dir, 'journal', 'usage.db'));
    assert.equal(emptied.size, 0);
    emptied.close();
  });
});
