// Money across the end of a process: SIGTERM with streams in flight settles every one of them (each record written
// with its charge) before the holds are given back; kill -9 leaves holds that expire, after which another instance
// spends what is left of the balance, to exactly nothing, and the books still hold.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { auditBooks } from '../../core/money/audit.js';
import { openStore } from '../../core/store/open-store.js';
import { postChat } from '../helpers/chat-requests.js';
import { cliEnv, freePort, killIfRunning, runCli, spawnCli, waitForLog, type CliProcess } from '../helpers/cli-process.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { until } from '../helpers/poll.js';
import { storeBackends } from '../helpers/test-stores.js';
import { STORE_PARTS } from '../../features/index.js';

const KEY = 'sk-shutdown-0123456789abcdef';
/** 7 completion tokens at 1.00 per 1M, input free: 7,000 nano-units a request, reserved exactly (max_tokens 7). */
const COST = BigInt(DEFAULT_USAGE.completion) * 1000n;

function config(storeUrl: string, upstream: string): string {
  return `server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 10000 }
store: { url: "${storeUrl}" }
pricing:
  models:
    "gpt-4o": { input: 0, output: 1.00 }
  reservation_timeout_ms: 1500
groups:
  pro: { models: ["*"] }
accounts:
  - name: acme
keys:
  - { name: k, key: ${KEY}, group: pro, account: acme }
channels:
  - { name: up, type: openai, base_url: "${upstream}", keys: [sk-up], models: ["gpt-*"] }
`;
}

const SOON = { timeoutMs: 10_000, intervalMs: 50 };

const ask = (url: string, stream: boolean): Promise<Response> =>
  postChat(url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, stream, messages: [{ role: 'user', content: 'hi' }] }, { key: KEY });

for (const backend of storeBackends()) {
  describe(`money across the end of a process (${backend.name})`, { skip: backend.skip }, () => {
    const upstream = new FakeOpenAI('up');
    let dir: string;
    let db: { readonly url: string; cleanup(): Promise<void> };
    let configPath: string;
    const children: CliProcess[] = [];

    async function start(): Promise<{ cli: CliProcess; url: string }> {
      const port = await freePort();
      const cli = spawnCli(['serve', '--config', configPath], cliEnv({ PORT: String(port), LOG_LEVEL: 'info' }));
      children.push(cli);
      await waitForLog(cli, 'gateway listening', { timeoutMs: 30_000, intervalMs: 50 });
      return { cli, url: `http://127.0.0.1:${port}` };
    }

    before(async () => {
      await upstream.start();
      dir = await mkdtemp(join(tmpdir(), 'gw-shutdown-'));
      db = await backend.fresh();
      configPath = join(dir, 'gateway.yaml');
      await writeFile(configPath, config(db.url, upstream.url));
      const credit = await runCli(['accounts', 'credit', 'acme', `0.${(COST * 100n).toString().padStart(9, '0')}`, '--idempotency-key', 'c1', '--config', configPath], cliEnv());
      assert.equal(credit.code, 0, credit.stderr);
    });
    after(async () => {
      for (const c of children) killIfRunning(c.proc);
      await upstream.close();
      await db?.cleanup();
      await rm(dir, { recursive: true, force: true });
    });

    it('SIGTERM with streams in flight: every one is settled and charged before the holds are given back', async () => {
      const gw = await start();
      upstream.reply = () => ({ kind: 'stream', delayMs: 100 });
      const asked = upstream.requests.length;
      const streams = Array.from({ length: 10 }, () => ask(gw.url, true).then(async (res) => [res.status, await res.text()] as const));
      await until('all ten streams are in flight', () => (upstream.requests.length >= asked + 10 ? true : undefined), SOON);
      gw.cli.proc.kill('SIGTERM');
      const answers = await Promise.all(streams);
      for (const [status, text] of answers) {
        assert.equal(status, 200);
        assert.match(text, /\[DONE\]/, 'each stream ran to its end within the grace');
      }
      assert.equal((await gw.cli.exited).code, 0, gw.cli.output.stderr);
      const store = await openStore(db.url, STORE_PARTS);
      try {
        assert.equal((await store.ledger.getAccount('acme'))?.balance, COST * 90n, 'ten charged, exactly');
        assert.equal((await store.listUsage()).length, 10);
        assert.deepEqual((await auditBooks(store)).problems, []);
        // Nothing stays held for the process that is gone: the whole rest is there for the next one.
        const hold = await store.ledger.acquireHold({ budget: { kind: 'account', account: 'acme' }, min: COST * 90n, want: COST * 90n, owner: 'probe', now: Date.now(), expiresAt: Date.now() + 1000 });
        assert.equal(hold.granted, true);
        await store.ledger.releaseHolds('probe');
      } finally {
        await store.close();
      }
    });

    it('kill -9 with requests in flight: its holds expire, and another instance spends the rest to exactly nothing', async () => {
      const doomed = await start();
      upstream.reply = () => ({ kind: 'hang' });
      // Requests that hang at the upstream hold balance on the doomed instance until it dies.
      const asked = upstream.requests.length;
      const pending = Array.from({ length: 5 }, () => ask(doomed.url, false).catch(() => null));
      await until('all five requests hang at the upstream', () => (upstream.requests.length >= asked + 5 ? true : undefined), SOON);
      doomed.cli.proc.kill('SIGKILL');
      await doomed.cli.exited;
      await Promise.all(pending);
      upstream.reply = (req) => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });
      const survivor = await start();
      // Past the reservation timeout (1.5 s), the dead instance's holds count for nothing: the whole balance can be held.
      const books = await openStore(db.url, STORE_PARTS);
      try {
        await until('the dead instance\'s holds expire', async () => {
          const now = Date.now();
          const probe = await books.ledger.acquireHold({ budget: { kind: 'account', account: 'acme' }, min: COST * 90n, want: COST * 90n, owner: 'probe', now, expiresAt: now + 1000 });
          if (probe.granted) await books.ledger.releaseHolds('probe');
          return probe.granted ? true : undefined;
        }, SOON);
      } finally {
        await books.close();
      }
      let served = 0;
      for (let i = 0; i < 200; i++) {
        const res = await ask(survivor.url, false);
        await res.arrayBuffer();
        if (res.status === 402) break;
        assert.equal(res.status, 200);
        served++;
      }
      assert.equal(served, 90, 'the whole rest of the balance, not a request more');
      survivor.cli.proc.kill('SIGTERM');
      assert.equal((await survivor.cli.exited).code, 0, survivor.cli.output.stderr);
      const store = await openStore(db.url, STORE_PARTS);
      try {
        assert.equal((await store.ledger.getAccount('acme'))?.balance, 0n);
        assert.deepEqual((await auditBooks(store)).problems, []);
      } finally {
        await store.close();
      }
    });
  });
}
