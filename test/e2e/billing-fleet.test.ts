// Exact under concurrency, across instances (issue 23's acceptance): an account credited exactly 50 times the cost of
// one request, each request reserving exactly its cost (input priced 0, max_tokens equal to the completion tokens
// the fake reports), 200 concurrent requests split unevenly between two gateway processes sharing one PostgreSQL
// give exactly 50 answers of 200 and 150 of 402; the balance ends at exactly 0 and the audit passes. On SQLite,
// one process gives the same.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { auditBooks } from '../../core/money/audit.js';
import { openStore } from '../../core/store/open-store.js';
import { postChat } from '../helpers/chat-requests.js';
import { cliEnv, killIfRunning, runCli, startFleet, type FleetMember } from '../helpers/cli-process.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { storeBackends } from '../helpers/test-stores.js';
import { STORE_PARTS } from '../../features/index.js';

const KEY = 'sk-fleet-0123456789abcdefgh';
/** 7 completion tokens at 1.00 per 1M: 7,000 nano-units a request, reserved exactly (max_tokens 7, input free). */
const COST = BigInt(DEFAULT_USAGE.completion) * 1000n;
const REQUESTS = 200;
const AFFORDABLE = 50;

function config(storeUrl: string, upstream: string): string {
  return `server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 5000 }
store: { url: "${storeUrl}" }
pricing:
  models:
    "gpt-4o": { input: 0, output: 1.00 }
groups:
  pro: { models: ["*"] }
accounts:
  - name: fleet
keys:
  - { name: fleet, key: ${KEY}, group: pro, account: fleet }
channels:
  - { name: up, type: openai, base_url: "${upstream}", keys: [sk-up], models: ["gpt-*"] }
`;
}

for (const backend of storeBackends()) {
  const instances = backend.name === 'postgres' ? 2 : 1;
  describe(`billing exact under concurrency (${backend.name}, ${instances} instance${instances === 1 ? '' : 's'})`, { skip: backend.skip }, () => {
    const upstream = new FakeOpenAI('up');
    let dir: string;
    let db: { readonly url: string; cleanup(): Promise<void> };
    const gateways: FleetMember[] = [];

    before(async () => {
      await upstream.start();
      dir = await mkdtemp(join(tmpdir(), 'gw-fleet-'));
      db = await backend.fresh();
      const configPath = join(dir, 'gateway.yaml');
      await writeFile(configPath, config(db.url, upstream.url));
      // The account exists once the CLI has read the file; it is credited 50 requests' worth, through the ledger.
      const credit = await runCli(['accounts', 'credit', 'fleet', `0.${(COST * BigInt(AFFORDABLE)).toString().padStart(9, '0')}`, '--idempotency-key', 'fleet-1', '--config', configPath], cliEnv());
      assert.equal(credit.code, 0, credit.stderr);
      gateways.push(...(await startFleet(configPath, instances)));
    });

    after(async () => {
      for (const g of gateways) killIfRunning(g.cli.proc);
      await upstream.close();
      await db?.cleanup();
      await rm(dir, { recursive: true, force: true });
    });

    it(`serves exactly ${AFFORDABLE} of ${REQUESTS} concurrent requests, refuses the rest with 402, and ends at a balance of exactly 0`, async () => {
      // Split unevenly: about 70 to the first instance, 130 to the second.
      const statuses = await Promise.all(
        Array.from({ length: REQUESTS }, async (_, i) => {
          const target = gateways[instances === 1 || i % 20 < 7 ? 0 : 1] as { url: string };
          const res = await postChat(target.url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, messages: [{ role: 'user', content: `hi ${i}` }] }, { key: KEY });
          await res.arrayBuffer();
          return res.status;
        }),
      );
      const count = (status: number): number => statuses.filter((s) => s === status).length;
      assert.deepEqual({ ok: count(200), refused: count(402), other: REQUESTS - count(200) - count(402) }, { ok: AFFORDABLE, refused: REQUESTS - AFFORDABLE, other: 0 });
      assert.equal(upstream.requests.length, AFFORDABLE, 'a refused request reaches no upstream');

      // A clean stop settles and writes everything, then gives the holds back.
      for (const g of gateways) g.cli.proc.kill('SIGTERM');
      for (const g of gateways) assert.equal((await g.cli.exited).code, 0, g.cli.output.stderr);
      const store = await openStore(db.url, STORE_PARTS);
      try {
        assert.equal((await store.ledger.getAccount('fleet'))?.balance, 0n);
        const records = await store.listUsage({ limit: 1000 });
        const charged = records.filter((r) => r.status === 200);
        assert.equal(charged.length, AFFORDABLE);
        for (const r of charged) assert.equal(r.cost, COST);
        assert.deepEqual((await auditBooks(store)).problems, []);
      } finally {
        await store.close();
      }
    });
  });
}
