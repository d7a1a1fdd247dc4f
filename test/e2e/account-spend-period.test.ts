// An account's max_spend over all its keys together (issue 45). Declared in gateway.yaml per day in Europe/Berlin:
// 200 concurrent requests of two keys of the account, split unevenly between two gateways sharing one PostgreSQL, give
// exactly 50 answers, each 402 naming the account's cap and when the day ends (message, x-gateway-budget-reset,
// retry-after); /v1/me and the console's accounts show the day's spend and end; the calendar clock (injected) moved to
// Berlin's midnight serves the keys again on both instances. An account made at run time takes its cap through the
// admin API (create and PATCH; an unknown zone is a 400 that stores nothing; a declared account's is refused), and a
// PATCH reaches the keys' lookups (this instance at once, another when its key cache lets go). On SQLite, one gateway.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditBooks } from '../../core/money/audit.js';
import { formatMoney } from '../../core/money/decimal.js';
import { parseOpenAIError, postChat } from '../helpers/chat-requests.js';
import { consoleSignIn } from '../helpers/console-session.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { storeBackends } from '../helpers/test-stores.js';

const ADMIN = 'account-cap-admin-token-0123456789';
const KEYS = ['sk-acme-one-0123456789abcdefghij', 'sk-acme-two-0123456789abcdefghij'] as const;
/** 7 completion tokens at 1.00 per 1M: 7,000 nano-units a request, reserved exactly (max_tokens 7, input free). */
const COST = BigInt(DEFAULT_USAGE.completion) * 1000n;
const REQUESTS = 200;
const AFFORDABLE = 50;
const EVENING = Date.parse('2026-11-29T22:00:00Z');
const BERLIN_MIDNIGHT = Date.parse('2026-11-29T23:00:00Z');
const DAY_START = '2026-11-28T23:00:00.000Z';

function config(storeUrl: string, upstream: string): string {
  return `server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 5000, admin_token: ${ADMIN} }
store: { url: "${storeUrl}" }
pricing:
  models:
    "gpt-4o": { input: 0, output: 1.00 }
groups:
  pro: { models: ["*"] }
accounts:
  - { name: acme, max_spend: { amount: "${formatMoney(COST * BigInt(AFFORDABLE))}", period: day, timezone: Europe/Berlin } }
keys:
  - { name: one, key: ${KEYS[0]}, group: pro, account: acme }
  - { name: two, key: ${KEYS[1]}, group: pro, account: acme }
channels:
  - { name: up, type: openai, base_url: "${upstream}", keys: [sk-up], models: ["gpt-*"] }
`;
}

function ask(url: string, key: string, i: number): Promise<Response> {
  return postChat(url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, messages: [{ role: 'user', content: `hi ${i}` }] }, { key });
}

for (const backend of storeBackends()) {
  const instances = backend.name === 'postgres' ? 2 : 1;
  describe(`an account's max_spend (${backend.name}, ${instances} instance${instances === 1 ? '' : 's'})`, { skip: backend.skip }, () => {
    const upstream = new FakeOpenAI('up');
    let db: { readonly url: string; cleanup(): Promise<void> };
    const gateways: GatewayUnderTest[] = [];
    let now = EVENING;
    // Not 0: the key cache reads a start of 0 as "no TTL".
    let cacheNow = 1_000_000;
    const first = (): GatewayUnderTest => gateways[0] as GatewayUnderTest;
    const last = (): GatewayUnderTest => gateways[instances - 1] as GatewayUnderTest;

    async function admin(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    }

    before(async () => {
      await upstream.start();
      db = await backend.fresh();
      for (let i = 0; i < instances; i++) gateways.push(await startGatewayUnderTest(config(db.url, upstream.url), { clock: () => now, keyCacheClock: () => cacheNow }));
      const credit = await admin(first().url, 'POST', '/admin/accounts/acme/credit', { amount: '100', idempotency_key: 'start' });
      assert.equal(credit.status, 201);
    });
    after(async () => {
      for (const g of gateways) await g.stop();
      await upstream.close();
      await db?.cleanup();
    });

    it(`serves exactly ${AFFORDABLE} of ${REQUESTS} concurrent requests of the account's two keys in the day, says it is the account's cap and when it resets, and serves again the next day`, async () => {
      const answers = await Promise.all(
        Array.from({ length: REQUESTS }, async (_, i) => {
          const target = gateways[instances === 1 || i % 20 < 7 ? 0 : 1] as GatewayUnderTest;
          const res = await ask(target.url, KEYS[i % 2] as string, i);
          return { status: res.status, reset: res.headers.get('x-gateway-budget-reset'), retryAfter: res.headers.get('retry-after'), text: await res.text() };
        }),
      );
      const count = (status: number): number => answers.filter((a) => a.status === status).length;
      assert.deepEqual({ ok: count(200), refused: count(402), other: REQUESTS - count(200) - count(402) }, { ok: AFFORDABLE, refused: REQUESTS - AFFORDABLE, other: 0 });
      assert.equal(upstream.requests.length, AFFORDABLE);
      for (const refused of answers.filter((a) => a.status === 402)) {
        assert.equal(refused.reset, '2026-11-29T23:00:00.000Z');
        assert.equal(refused.retryAfter, '3600');
        const error = parseOpenAIError(refused.text);
        assert.equal(error.code, 'max_spend_reached');
        assert.match(error.message, /account "acme" has reached its spending limit \(max_spend\) for the current period; it resets at 2026-11-29T23:00:00\.000Z/);
      }

      for (const g of gateways) await g.gateway.runtime.deps.writer.flush();
      const me = (await (await fetch(`${last().url}/v1/me`, { headers: { authorization: `Bearer ${KEYS[1]}` } })).json()) as Record<string, unknown>;
      const spentToday = formatMoney(COST * BigInt(AFFORDABLE));
      assert.deepEqual(me['account_max_spend'], { max_spend: spentToday, spend: spentToday, left: '0', period: 'day', timezone: 'Europe/Berlin', resets_at: '2026-11-29T23:00:00.000Z' });
      assert.equal(me['max_spend'], null, 'the key has no cap of its own');

      const session = await consoleSignIn(first().url, { admin_token: ADMIN });
      const listed = await fetch(`${first().url}/console/api/accounts`, { headers: { cookie: session.cookie, 'x-csrf-token': session.csrf } });
      const row = ((await listed.json()) as { data: Record<string, unknown>[] }).data.find((a) => a['name'] === 'acme');
      assert.equal(row?.['max_spend_left'], '0');
      assert.deepEqual(row?.['max_spend_period'], { period: 'day', timezone: 'Europe/Berlin', spend: spentToday, resets_at: '2026-11-29T23:00:00.000Z' });
      // The admin API refuses to set a declared account's cap (gateway.yaml's).
      const declared = await admin(first().url, 'PATCH', '/admin/accounts/acme', { max_spend: '1000' });
      assert.equal(declared.status, 400);
      assert.match(String((declared.json['error'] as Record<string, unknown>)['message']), /declared in gateway\.yaml/);

      // A key made at run time on the declared account draws on the file's cap, whatever the store says of it.
      await first().gateway.runtime.deps.store.ledger.setAccountSpendCap('acme', { maxSpend: COST * 1000n });
      const runtime = (await admin(first().url, 'POST', '/admin/keys', { name: 'acme-runtime', group: 'pro', account: 'acme' })).json['key'] as string;
      const late = await ask(last().url, runtime, 999);
      assert.equal(late.status, 402);
      assert.match(parseOpenAIError(await late.text()).message, /account "acme" has reached/);

      now = BERLIN_MIDNIGHT;
      for (const [i, g] of gateways.entries()) assert.equal((await ask(g.url, KEYS[i % 2] as string, 1000 + i)).status, 200, 'the next day is a new budget');
      for (const g of gateways) await g.gateway.runtime.deps.writer.flush();
      const ledger = first().gateway.runtime.deps.store.ledger;
      const spends = await ledger.keySpends([`account:acme@${DAY_START}`, 'account:acme@2026-11-29T23:00:00.000Z', 'account:acme']);
      assert.equal(spends.get(`account:acme@${DAY_START}`), COST * BigInt(AFFORDABLE));
      assert.equal(spends.get('account:acme@2026-11-29T23:00:00.000Z'), COST * BigInt(instances));
      assert.equal(spends.get('account:acme'), COST * BigInt(AFFORDABLE + instances), 'the lifetime row counts every charge');
      // The books hold: every period row (the account's among them) equals the records naming it.
      assert.deepEqual((await auditBooks(first().gateway.runtime.deps.store, now)).problems, []);
    });

    it('an account made at run time takes its cap through the admin API; a PATCH reaches every instance', async () => {
      const bad = await admin(first().url, 'POST', '/admin/accounts', { name: 'beta', max_spend: { amount: '1', period: 'day', timezone: 'Mars/Olympus_Mons' } });
      assert.equal(bad.status, 400);
      assert.equal((bad.json['error'] as Record<string, unknown>)['param'], 'max_spend.timezone');
      assert.equal((await admin(first().url, 'GET', '/admin/accounts/beta')).status, 404, 'nothing created');

      const made = await admin(first().url, 'POST', '/admin/accounts', { name: 'beta', max_spend: { amount: formatMoney(COST * 2n), period: 'week' } });
      assert.equal(made.status, 201, JSON.stringify(made.json));
      assert.equal(made.json['max_spend'], formatMoney(COST * 2n));
      // The clock is at 23:00 UTC on Sunday 29 November: the UTC week ends within the hour.
      assert.deepEqual(made.json['max_spend_period'], { period: 'week', timezone: 'UTC', spend: '0', resets_at: '2026-11-30T00:00:00.000Z' });
      await admin(first().url, 'POST', '/admin/accounts/beta/credit', { amount: '10', idempotency_key: 'beta-start' });
      const key = (await admin(first().url, 'POST', '/admin/keys', { name: 'beta-key', group: 'pro', account: 'beta' })).json['key'] as string;

      for (const [i, g] of gateways.entries()) assert.equal((await ask(g.url, key, 2000 + i)).status, 200);
      if (instances === 1) assert.equal((await ask(first().url, key, 2001)).status, 200);
      const refused = await ask(last().url, key, 2002);
      assert.equal(refused.status, 402);
      assert.match(parseOpenAIError(await refused.text()).message, /account "beta" has reached its spending limit \(max_spend\) for the current period; it resets at 2026-11-30T00:00:00\.000Z/);

      // A lifetime cap of three requests: one more. This instance applies it at once; another when its cache lets go.
      // (The week's charges are written first: a new cap's row counts a charge once its record is written, so a request
      // admitted in the usage batch's moment after a change may pass it by what is not written yet; docs/money.md.)
      for (const g of gateways) await g.gateway.runtime.deps.writer.flush();
      const patched = await admin(first().url, 'PATCH', '/admin/accounts/beta', { max_spend: formatMoney(COST * 3n) });
      assert.equal(patched.status, 200, JSON.stringify(patched.json));
      assert.equal(patched.json['max_spend_period'], null);
      assert.equal(patched.json['max_spend_left'], formatMoney(COST), 'the lifetime row counts the week\'s two');
      if (instances === 2) assert.equal((await ask(last().url, key, 2003)).status, 402, 'the other instance: the week cap still, until its key cache lets go');
      cacheNow += 5_001;
      assert.equal((await ask(last().url, key, 2004)).status, 200);
      const lifetime = await ask(first().url, key, 2005);

      assert.equal(lifetime.status, 402);
      assert.equal(lifetime.headers.get('x-gateway-budget-reset'), null);
      assert.match(parseOpenAIError(await lifetime.text()).message, /account "beta" has reached its spending limit \(max_spend\)\. /);

      const cleared = await admin(first().url, 'PATCH', '/admin/accounts/beta', { max_spend: null });
      assert.equal(cleared.json['max_spend'], null);
      cacheNow += 5_001;
      for (const [i, g] of gateways.entries()) assert.equal((await ask(g.url, key, 2100 + i)).status, 200, 'no cap');
    });
  });
}
