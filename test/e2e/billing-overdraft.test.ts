// Overruns are drawn at once, and stop every instance (issue 40, finding 1). An account of 100 reservations, requests
// whose upstream reports ten times the input the gateway estimated (bytes / 4): each reserves R and costs 10 R.
//
// One instance (the holder) takes a hold first, while the balance is whole, and keeps it with a request in flight.
// The other (the spender) then serves waves of 40 requests held in flight at once, until it refuses: its overruns take
// the account below zero. Once every instance has renewed its holds, the holder admits nothing on what it still held,
// so the overdraft stays within the README's bound (requests in flight x the largest overrun one request makes, here
// 40 x 9 R), every instance answers 402, and `gateway accounts audit` names the account and its overdraft.
// On PostgreSQL with two gateway processes sharing the database; on SQLite with one, holder and spender alike.

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
import { FakeOpenAI, type RecordedRequest } from '../helpers/fake-openai.js';
import { until } from '../helpers/poll.js';
import { selectRows } from '../helpers/store-rows.js';
import { storeBackends } from '../helpers/test-stores.js';
import { STORE_PARTS } from '../../features/index.js';

const KEY = 'sk-overdraft-0123456789abcdefgh';
const PARALLEL = 40;
const TTL_MS = 30_000;
/** Input at 5.00 per 1M tokens: 5,000 nano-units a token; output free (max_tokens 1). */
const NANOS_PER_INPUT_TOKEN = 5000n;
/** The holder's request that stays in flight (its upstream never answers) until the test ends. */
const PIN = 999;

/** Every request's body has the same length, so each is estimated (and reserved) alike. */
function body(i: number): string {
  return JSON.stringify({ model: 'gpt-4o', max_tokens: 1, messages: [{ role: 'user', content: `hi ${String(i).padStart(3, '0')}` }] });
}
const ESTIMATED_INPUT = Math.ceil(Buffer.byteLength(body(0)) / 4);
const RESERVED = BigInt(ESTIMATED_INPUT) * NANOS_PER_INPUT_TOKEN;
const COST = 10n * RESERVED;
const BALANCE = 100n * RESERVED;

function config(storeUrl: string, upstream: string): string {
  return `server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 5000 }
store: { url: "${storeUrl}" }
pricing:
  reservation_timeout_ms: ${TTL_MS}
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

const post = (url: string, i: number, signal?: AbortSignal): Promise<Response> =>
  fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: body(i), signal: signal ?? null });

const isPin = (req: RecordedRequest): boolean => JSON.stringify(req.body).includes(`hi ${PIN}`);

for (const backend of storeBackends()) {
  const instances = backend.name === 'postgres' ? 2 : 1;
  describe(`overruns drawn at once (${backend.name}, ${instances} instance${instances === 1 ? '' : 's'})`, { skip: backend.skip }, () => {
    const upstream = new FakeOpenAI('up');
    /** Answers held back until the test lets the wave go. */
    const waiting: (() => void)[] = [];
    let dir: string;
    let configPath: string;
    let db: { readonly url: string; cleanup(): Promise<void> };
    let store: Store;
    const gateways: FleetMember[] = [];

    before(async () => {
      // The upstream reports ten times the input the gateway estimated from the body; the pin is never answered.
      upstream.reply = (req) => (isPin(req) ? { kind: 'hang' } : { kind: 'completion', usage: { prompt: 10 * ESTIMATED_INPUT, completion: 1, cached: 0, reasoning: 0 } });
      upstream.gate = (req) => (isPin(req) ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve)));
      await upstream.start();
      dir = await mkdtemp(join(tmpdir(), 'gw-overdraft-'));
      db = await backend.fresh();
      configPath = join(dir, 'gateway.yaml');
      await writeFile(configPath, config(db.url, upstream.url));
      const credit = await runCli(['accounts', 'credit', 'tiny', formatMoney(BALANCE), '--idempotency-key', 'tiny-1', '--config', configPath], cliEnv());
      assert.equal(credit.code, 0, credit.stderr);
      gateways.push(...(await startFleet(configPath, instances)));
      store = await openStore(db.url, STORE_PARTS);
    });

    after(async () => {
      for (const release of waiting.splice(0)) release();
      for (const g of gateways) killIfRunning(g.cli.proc);
      await store?.close();
      await upstream.close();
      await db?.cleanup();
      await rm(dir, { recursive: true, force: true });
    });

    const balance = async (): Promise<bigint | undefined> => (await store.ledger.getAccount('tiny'))?.balance;

    /**
     * 40 requests at once to one instance: those it admits are held at the upstream until every one of the 40 is
     * there or refused, so all of them are in flight together; then they are answered, and every charge is written.
     */
    async function wave(url: string, first: number, servedBefore: number): Promise<number[]> {
      let refused = 0;
      const answers = Array.from({ length: PARALLEL }, async (_, i) => {
        const res = await post(url, first + i);
        if (res.status !== 200) refused++;
        await res.arrayBuffer();
        return res.status;
      });
      await until('the wave admitted or refused', () => (waiting.length + refused === PARALLEL ? true : undefined), { timeoutMs: 20_000, intervalMs: 10 });
      for (const release of waiting.splice(0)) release();
      const statuses = await Promise.all(answers);
      const served = servedBefore + statuses.filter((s) => s === 200).length;
      await until('every charge written', async () => ((await balance()) === BALANCE - BigInt(served) * COST ? true : undefined), { timeoutMs: 20_000, intervalMs: 50 });
      return statuses;
    }

    it(`waves of ${PARALLEL} requests costing 10x their reservation overdraw by at most ${PARALLEL} x 9 reservations; then no instance admits anything, whatever it held, and the audit names the overdraft`, async (t) => {
      const holder = gateways[0] as FleetMember;
      const spender = gateways[instances - 1] as FleetMember;
      // The holder takes its hold while the balance is whole (a quarter of it), and keeps it: its pin stays in flight.
      const pin = new AbortController();
      const pinned = post(holder.url, PIN, pin.signal).then(
        (res) => res.status,
        () => 'aborted',
      );
      await until('the pin reached the upstream', () => (upstream.requests.some(isPin) ? true : undefined), { timeoutMs: 20_000, intervalMs: 10 });

      // The spender serves waves until it refuses a whole one.
      let served = 0;
      const waves: number[][] = [];
      for (let w = 0; w < 10 && !(waves.at(-1)?.every((s) => s === 402) ?? false); w++) {
        const statuses = await wave(spender.url, 100 * w, served);
        assert.ok(
          statuses.every((s) => s === 200 || s === 402),
          `wave ${w}: ${statuses.join(' ')}`,
        );
        served += statuses.filter((s) => s === 200).length;
        waves.push(statuses);
      }
      assert.ok(waves.at(-1)?.every((s) => s === 402), 'the spender ends refusing');
      const after = BALANCE - BigInt(served) * COST;
      // The case is what it claims: the spender took the account below zero, while the holder still held some of it.
      assert.ok(after < 0n, `served ${served}: the account is overdrawn`);

      // Every instance has heard: the holds left are the pin's alone, one reservation (the holder gave back what it
      // held free when its renewal found the account below zero; the spender's are gone).
      await until(
        'the holder stopped its hold',
        async () => {
          const holds = await selectRows<{ amount: number | string }>(db.url, "SELECT amount FROM holds WHERE budget = 'account:tiny'");
          return holds.length === 1 && BigInt(holds[0]?.amount ?? 0) === RESERVED ? true : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      // Now the holder admits nothing, on what it held or anything else.
      const held = await wave(holder.url, 2000, served);
      assert.deepEqual(held, Array(PARALLEL).fill(402), 'the holder refuses a whole wave once it has heard');
      assert.equal(upstream.requests.length, served + 1, 'nothing more reached the upstream (the pin and the served)');

      const bound = BigInt(PARALLEL) * (COST - RESERVED);
      assert.ok(-after <= bound, `overdraft ${-after} within concurrency x largest overrun = ${bound}`);
      t.diagnostic(`served ${served} in waves of ${PARALLEL} (${waves.map((w) => w.filter((s) => s === 200).length).join(', ')}), reserved ${RESERVED} and charged ${COST} each: balance ${formatMoney(after)}, bound -${formatMoney(bound)}`);

      // Below zero: every instance answers 402 with the balance's own code.
      for (const [n, g] of gateways.entries()) {
        const res = await post(g.url, 3000 + n);
        const text = await res.text();
        assert.equal(res.status, 402, `instance ${n}: ${text}`);
        assert.match(text, /insufficient_balance/);
      }
      pin.abort();
      await pinned;

      // The audit names the account and its overdraft, and finds the books otherwise right.
      assert.equal(await balance(), after, 'the pin, never answered, cost nothing');
      const report = await auditBooks(store);
      assert.deepEqual(report.overdrawn, [{ account: 'tiny', by: -after }]);
      assert.deepEqual(report.problems, []);
      const cli = await runCli(['accounts', 'audit', '--config', configPath], cliEnv());
      assert.equal(cli.code, 1, 'an overdrawn account fails the audit');
      assert.ok(cli.stderr.includes(`account "tiny" is below zero by ${formatMoney(-after)}`), cli.stderr);
      assert.match(cli.stdout, /OVERDRAWN: .* 0 problems, 1 accounts below zero/);
    });
  });
}
