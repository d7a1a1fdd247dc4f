// A daily max_spend, exact across instances and reset by the calendar (issue 45): a key allowed exactly 50 requests'
// cost a day (Europe/Berlin), 200 concurrent requests split unevenly between two gateways sharing one PostgreSQL
// give exactly 50 answers of 200 and 150 of 402, each 402 saying when the day ends (x-gateway-budget-reset,
// retry-after, the message; /v1/me and the console show the day's spend and its end); the calendar clock (injected, shared by both) moved to Berlin's midnight serves the
// key again on both instances, and the spend of each day is its own row. On SQLite, one gateway does the same.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postChat, parseOpenAIError } from '../helpers/chat-requests.js';
import { consoleSignIn } from '../helpers/console-session.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { storeBackends } from '../helpers/test-stores.js';

const KEY = 'sk-daily-0123456789abcdefghij';
const ADMIN = 'test-admin-token-0123456789';
/** 7 completion tokens at 1.00 per 1M: 7,000 nano-units a request, reserved exactly (max_tokens 7, input free). */
const COST = BigInt(DEFAULT_USAGE.completion) * 1000n;
const REQUESTS = 200;
const AFFORDABLE = 50;
/** 23:00 on 29 November in Berlin (UTC+1): the day ends an hour later, at 23:00 UTC. */
const EVENING = Date.parse('2026-11-29T22:00:00Z');
const BERLIN_MIDNIGHT = Date.parse('2026-11-29T23:00:00Z');

function config(storeUrl: string, upstream: string): string {
  const cap = `0.${(COST * BigInt(AFFORDABLE)).toString().padStart(9, '0')}`;
  return `server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 5000, admin_token: ${ADMIN} }
store: { url: "${storeUrl}" }
pricing:
  models:
    "gpt-4o": { input: 0, output: 1.00 }
groups:
  pro: { models: ["*"] }
keys:
  - { name: daily, key: ${KEY}, group: pro, max_spend: { amount: "${cap}", period: day, timezone: Europe/Berlin } }
channels:
  - { name: up, type: openai, base_url: "${upstream}", keys: [sk-up], models: ["gpt-*"] }
`;
}

function ask(url: string, i: number): Promise<Response> {
  return postChat(url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, messages: [{ role: 'user', content: `hi ${i}` }] }, { key: KEY });
}

for (const backend of storeBackends()) {
  const instances = backend.name === 'postgres' ? 2 : 1;
  describe(`daily max_spend exact and reset (${backend.name}, ${instances} instance${instances === 1 ? '' : 's'})`, { skip: backend.skip }, () => {
    const upstream = new FakeOpenAI('up');
    let db: { readonly url: string; cleanup(): Promise<void> };
    const gateways: GatewayUnderTest[] = [];
    let now = EVENING;
    const clock = (): number => now;

    before(async () => {
      await upstream.start();
      db = await backend.fresh();
      for (let i = 0; i < instances; i++) gateways.push(await startGatewayUnderTest(config(db.url, upstream.url), { clock }));
    });

    after(async () => {
      for (const g of gateways) await g.stop();
      await upstream.close();
      await db?.cleanup();
    });

    it(`serves exactly ${AFFORDABLE} of ${REQUESTS} concurrent requests in the day, says when it resets, and serves again the next day`, async () => {
      const answers = await Promise.all(
        Array.from({ length: REQUESTS }, async (_, i) => {
          const target = gateways[instances === 1 || i % 20 < 7 ? 0 : 1] as GatewayUnderTest;
          const res = await ask(target.url, i);
          return { status: res.status, reset: res.headers.get('x-gateway-budget-reset'), retryAfter: res.headers.get('retry-after'), text: await res.text() };
        }),
      );
      const count = (status: number): number => answers.filter((a) => a.status === status).length;
      assert.deepEqual({ ok: count(200), refused: count(402), other: REQUESTS - count(200) - count(402) }, { ok: AFFORDABLE, refused: REQUESTS - AFFORDABLE, other: 0 });
      assert.equal(upstream.requests.length, AFFORDABLE, 'a refused request reaches no upstream');
      for (const refused of answers.filter((a) => a.status === 402)) {
        assert.equal(refused.reset, '2026-11-29T23:00:00.000Z');
        assert.equal(refused.retryAfter, '3600');
        const error = parseOpenAIError(refused.text);
        assert.equal(error.code, 'max_spend_reached');
        assert.match(error.message, /resets at 2026-11-29T23:00:00\.000Z/);
      }

      // /v1/me: nothing left of the day's cap, and when it resets.
      const me = async (url: string): Promise<Record<string, unknown>> => (await (await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as Record<string, unknown>;
      const before = await me((gateways[instances - 1] as GatewayUnderTest).url);
      assert.equal(before['max_spend_left'], '0');
      assert.deepEqual(before['max_spend_period'], { period: 'day', timezone: 'Europe/Berlin', spend: '0.00035', resets_at: '2026-11-29T23:00:00.000Z' });

      // The console's key list: the same, for the operator.
      const session = await consoleSignIn((gateways[0] as GatewayUnderTest).url, { admin_token: ADMIN });
      const listed = await fetch(`${(gateways[0] as GatewayUnderTest).url}/console/api/keys`, { headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });
      const row = ((await listed.json()) as { data: Record<string, unknown>[] }).data.find((k) => k['id'] === 'config:daily');
      assert.equal(row?.['max_spend_left'], '0');
      assert.deepEqual(row?.['max_spend_period'], { period: 'day', timezone: 'Europe/Berlin', spend: '0.00035', resets_at: '2026-11-29T23:00:00.000Z' });

      // Still the same day a second before midnight: refused on every instance.
      now = BERLIN_MIDNIGHT - 1000;
      for (const g of gateways) assert.equal((await ask(g.url, 1000)).status, 402);

      // The day turns in Berlin: the key is served again on every instance, up to the new day's cap.
      now = BERLIN_MIDNIGHT;
      for (const [i, g] of gateways.entries()) {
        const res = await ask(g.url, 2000 + i);
        assert.equal(res.status, 200, await res.text());
      }

      for (const g of gateways) await g.gateway.runtime.deps.writer.flush();
      const next = await me((gateways[0] as GatewayUnderTest).url);
      assert.deepEqual(next['max_spend_period'], { period: 'day', timezone: 'Europe/Berlin', spend: instances === 1 ? '0.000007' : '0.000014', resets_at: '2026-11-30T23:00:00.000Z' });

      // Each day's spend is its own row, and the lifetime spend is both days'.
      const ledger = (gateways[0] as GatewayUnderTest).gateway.runtime.deps.store.ledger;
      const spends = await ledger.keySpends(['config:daily', 'config:daily@2026-11-28T23:00:00.000Z', 'config:daily@2026-11-29T23:00:00.000Z']);
      assert.equal(spends.get('config:daily@2026-11-28T23:00:00.000Z'), COST * BigInt(AFFORDABLE));
      assert.equal(spends.get('config:daily@2026-11-29T23:00:00.000Z'), COST * BigInt(instances));
      assert.equal(spends.get('config:daily'), COST * BigInt(AFFORDABLE + instances));
    });
  });
}
