// Overruns are drawn at once (issue 40, finding 1): an account of $0.01, 40 parallel requests whose upstream
// reports ten times the input the gateway estimated (bytes / 4). Each request reserves R and costs 10 R, so the
// account is overdrawn; the overdraft stays within the README's bound (requests in flight x the largest overrun
// one request makes, here 40 x 9 R), a request made once the balance is below zero gets 402 on every instance
// (none is admitted on what an instance still held), and `gateway accounts audit` names the account and its
// overdraft. On PostgreSQL with two gateway processes sharing the database; on SQLite with one.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { auditBooks } from '../../core/money/audit.js';
import { formatMoney } from '../../core/money/decimal.js';
import { openStore } from '../../core/store/open-store.js';
import type { Store } from '../../core/store/store.js';
import { cliEnv, killIfRunning, runCli, startFleet, type FleetMember } from '../helpers/cli-process.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { until } from '../helpers/poll.js';
import { storeBackends } from '../helpers/test-stores.js';

const KEY = 'sk-overdraft-0123456789abcdefgh';
const PARALLEL = 40;
const BALANCE = 10_000_000n; // $0.01 in nano-units
/** Input at 5.00 per 1M tokens: 5,000 nano-units a token; output free (max_tokens 1). */
const NANOS_PER_INPUT_TOKEN = 5000n;

/** Every request's body has the same length, so each is estimated (and reserved) alike. */
function body(i: number): string {
  return JSON.stringify({ model: 'gpt-4o', max_tokens: 1, messages: [{ role: 'user', content: `hi ${String(i).padStart(3, '0')}` }] });
}
const ESTIMATED_INPUT = Math.ceil(Buffer.byteLength(body(0)) / 4);
const RESERVED = BigInt(ESTIMATED_INPUT) * NANOS_PER_INPUT_TOKEN;
const COST = 10n * RESERVED;

function config(storeUrl: string, upstream: string): string {
  return `server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 5000 }
store: { url: "${storeUrl}" }
pricing:
  models:
    "gpt-4o": { input: 5.00, output: 0 }
groups:
  pro: { models: ["*"] }
accounts:
  - name: tiny
keys:
  - { name: tiny, key: ${KEY}, group: pro, account: tiny }
channels:
  - { name: up, type: openai, base_url: "${upstream}", keys: [sk-up], models: ["gpt-*"] }
`;
}

const post = (url: string, i: number): Promise<Response> =>
  fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: body(i) });

for (const backend of storeBackends()) {
  const instances = backend.name === 'postgres' ? 2 : 1;
  describe(`overruns drawn at once (${backend.name}, ${instances} instance${instances === 1 ? '' : 's'})`, { skip: backend.skip }, () => {
    const upstream = new FakeOpenAI('up');
    let dir: string;
    let configPath: string;
    let db: { readonly url: string; cleanup(): Promise<void> };
    let store: Store;
    const gateways: FleetMember[] = [];

    before(async () => {
      // The upstream reports ten times the input the gateway estimated from the body.
      upstream.reply = () => ({ kind: 'completion', usage: { prompt: 10 * ESTIMATED_INPUT, completion: 1, cached: 0, reasoning: 0 } });
      await upstream.start();
      dir = await mkdtemp(join(tmpdir(), 'gw-overdraft-'));
      db = await backend.fresh();
      configPath = join(dir, 'gateway.yaml');
      await writeFile(configPath, config(db.url, upstream.url));
      const credit = await runCli(['accounts', 'credit', 'tiny', formatMoney(BALANCE), '--idempotency-key', 'tiny-1', '--config', configPath], cliEnv());
      assert.equal(credit.code, 0, credit.stderr);
      gateways.push(...(await startFleet(configPath, instances)));
      store = await openStore(db.url);
    });

    after(async () => {
      for (const g of gateways) killIfRunning(g.cli.proc);
      await store?.close();
      await upstream.close();
      await db?.cleanup();
      await rm(dir, { recursive: true, force: true });
    });

    it(`${PARALLEL} parallel requests costing 10x their reservation overdraw by at most ${PARALLEL} x 9 reservations; then nothing is admitted and the audit names the overdraft`, async (t) => {
      // The case is what it claims: the account covers more than 40 reservations (so instances hold money left over
      // after the burst), and less than 40 costs.
      assert.ok(BALANCE > BigInt(PARALLEL) * RESERVED && BALANCE < BigInt(PARALLEL) * COST, `reservation ${RESERVED}`);
      const statuses = await Promise.all(
        Array.from({ length: PARALLEL }, async (_, i) => {
          const res = await post((gateways[i % instances] as FleetMember).url, i);
          await res.arrayBuffer();
          return res.status;
        }),
      );
      const served = statuses.filter((s) => s === 200).length;
      assert.equal(served + statuses.filter((s) => s === 402).length, PARALLEL, `statuses: ${statuses.join(' ')}`);
      assert.equal(upstream.requests.length, served);

      // Every served request's record is written: the balance is what they cost, below zero.
      const expected = BALANCE - BigInt(served) * COST;
      await until('every charge written', async () => ((await store.ledger.getAccount('tiny'))?.balance === expected ? true : undefined), { timeoutMs: 20_000, intervalMs: 50 });
      assert.ok(expected < 0n, `served ${served}: the account is overdrawn`);
      const bound = BigInt(PARALLEL) * (COST - RESERVED);
      assert.ok(-expected <= bound, `overdraft ${-expected} within concurrency x largest overrun = ${bound}`);
      t.diagnostic(`served ${served} of ${PARALLEL}, reserved ${RESERVED} and charged ${COST} each: balance ${formatMoney(expected)}, bound -${formatMoney(bound)}`);

      // Below zero: nothing more is admitted, on any instance, whatever an instance still held when the overruns came.
      for (const [n, g] of gateways.entries()) {
        for (let i = 0; i < 3; i++) {
          const res = await post(g.url, 100 + 10 * n + i);
          const text = await res.text();
          assert.equal(res.status, 402, `instance ${n}, request ${i}: ${text}`);
          assert.match(text, /insufficient_balance/);
        }
      }
      assert.equal(upstream.requests.length, served, 'no request after the overdraft reached the upstream');

      // The audit names the account and its overdraft, and finds the books otherwise right.
      const report = await auditBooks(store);
      assert.deepEqual(report.overdrawn, [{ account: 'tiny', by: -expected }]);
      assert.deepEqual(report.problems, []);
      const cli = await runCli(['accounts', 'audit', '--config', configPath], cliEnv());
      assert.equal(cli.code, 1, 'an overdrawn account fails the audit');
      assert.ok(cli.stderr.includes(`account "tiny" is below zero by ${formatMoney(-expected)}`), cli.stderr);
      assert.match(cli.stdout, /OVERDRAWN: .* 0 problems, 1 accounts below zero/);
    });
  });
}
