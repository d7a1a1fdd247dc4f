// GET /console/api/dashboard over HTTP (issue 25): an account's user sees their own account's balance, spend and
// usage (from the hourly sums), split by model and key, and nothing of another account's, whatever they ask for
// (?account=); the operator sees every account together, or one; the totals equal the records'; the range and
// bucket are checked (400 naming the field).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postChat } from '../helpers/chat-requests.js';
import { consoleAccountUser, consoleSignIn, creditAccount, type ConsoleSession } from '../helpers/console-session.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'dashboard-admin-token-0123456789';
const ACME_KEY = 'sk-acme-dashboard-0123456789';
const GLOBEX_KEY = 'sk-globex-dashboard-012345678';
// gpt-4o: 2.50 in, 10.00 out, 1.25 cache reads per 1M; the fake reports 31 prompt (12 cached) and 7 completion tokens.
const COST = 132_500n;

describe('console dashboard', () => {
  const upstream = new FakeOpenAI('up');
  let gw: GatewayUnderTest;

  before(async () => {
    await upstream.start();
    gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "gpt-4o": { input: 2.50, output: 10.00, cache_read: 1.25 }
groups:
  pro: { models: ["*"] }
accounts: [{ name: acme }, { name: globex }]
keys:
  - { name: acme-bot, key: ${ACME_KEY}, group: pro, account: acme }
  - { name: globex-bot, key: ${GLOBEX_KEY}, group: pro, account: globex }
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up], models: ["gpt-*"], models_refresh_ms: 0 }
`);
    for (const account of ['acme', 'globex']) await creditAccount(gw.url, ADMIN, account, '10.00');
  });
  after(async () => {
    await gw.stop();
    await upstream.close();
  });

  const session = (body: Record<string, unknown>): Promise<ConsoleSession> => consoleSignIn(gw.url, body);

  async function dashboard(cookie: string, query = ''): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await fetch(`${gw.url}/console/api/dashboard${query}`, { headers: { cookie } });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  it('a user sees their account alone; the operator all of them, or one', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: `a${i}` }] }, { key: ACME_KEY })).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: `g${i}` }] }, { key: GLOBEX_KEY })).status, 200);
    const records = await gw.usage();
    assert.equal(records.length, 5);

    const operator = await session({ admin_token: ADMIN });
    const ada = await consoleAccountUser(gw.url, operator, 'acme', 'ada', 'ada chose this password');

    const own = await dashboard(ada.cookie);
    assert.equal(own.status, 200);
    assert.equal(own.json['account'], 'acme');
    assert.deepEqual(own.json['totals'], { requests: 3, errors: 0, input_tokens: 93, output_tokens: 21, cached_tokens: 36, reasoning_tokens: 6, images: 0, cost: formatted(3n * COST) });
    assert.equal(own.json['spend_today'], formatted(3n * COST));
    assert.equal(own.json['balance'], formatted(10_000_000_000n - 3n * COST));
    assert.deepEqual((own.json['by_key'] as { name: string }[]).map((k) => k.name), ['acme-bot']);
    assert.deepEqual((own.json['by_model'] as { model: string; requests: number }[]).map((m) => [m.model, m.requests]), [['gpt-4o', 3]]);
    const series = own.json['series'] as { requests: number }[];
    assert.equal(series.length, 24, 'the last 24 hours by hour');
    assert.equal(series.reduce((n, p) => n + p.requests, 0), 3);

    // Asking for another account changes nothing for a user (no error either: nothing tells what exists).
    const peek = await dashboard(ada.cookie, '?account=globex');
    assert.deepEqual([peek.json['account'], (peek.json['totals'] as { requests: number }).requests], ['acme', 3]);

    const all = await dashboard(operator.cookie);
    assert.deepEqual([all.json['account'], (all.json['totals'] as { requests: number }).requests, all.json['balance']], [null, 5, null]);
    assert.deepEqual((all.json['by_key'] as { name: string }[]).map((k) => k.name).sort(), ['acme-bot', 'globex-bot']);
    // The charts' split: one series per key, aligned with the buckets, summing to the totals.
    const split = all.json['split'] as { by_key: { name: string; cost: string[]; tokens: number[] }[]; by_model: { name: string; tokens: number[] }[] };
    assert.deepEqual(split.by_key.map((s) => s.name).sort(), ['acme-bot', 'globex-bot']);
    for (const s of split.by_key) assert.equal(s.tokens.length, 24);
    const tokensOf = (name: string): number => split.by_key.find((s) => s.name === name)?.tokens.reduce((a, b) => a + b, 0) ?? -1;
    assert.deepEqual([tokensOf('acme-bot'), tokensOf('globex-bot')], [3 * (31 + 7), 2 * (31 + 7)]);
    assert.deepEqual(split.by_model.map((s) => [s.name, s.tokens.reduce((a, b) => a + b, 0)]), [['gpt-4o', 5 * (31 + 7)]]);
    const globex = await dashboard(operator.cookie, '?account=globex');
    assert.deepEqual([globex.json['account'], (globex.json['totals'] as { requests: number }).requests, globex.json['spend_today']], ['globex', 2, formatted(2n * COST)]);
    assert.equal((await dashboard(operator.cookie, '?account=nowhere')).status, 404);
    assert.equal((await dashboard('')).status, 401, 'signed out');
  });

  it('a range by day, and bad ranges refused with the field named', async () => {
    const operator = await session({ admin_token: ADMIN });
    const week = await dashboard(operator.cookie, `?bucket=day&from=${new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10)}`);
    assert.equal(week.status, 200);
    assert.equal((week.json['series'] as unknown[]).length, 7);
    for (const [query, param] of [
      ['?bucket=week', 'bucket'],
      ['?from=yesterday', 'from'],
      ['?from=2020-01-01&to=2022-01-01', 'from'],
      ['?from=2026-01-01&to=2026-03-01', 'bucket'],
      ['?from=2024-02-30', 'from'], // no such day
      ['?from=2024-01-01T24:00:00Z', 'from'],
    ] as const) {
      const bad = await dashboard(operator.cookie, query);
      assert.deepEqual([bad.status, (bad.json['error'] as { param: string }).param], [400, param], query);
    }
  });
});

/** Nano-units as the API shows money: a decimal string. */
function formatted(nano: bigint): string {
  const whole = nano / 1_000_000_000n;
  const frac = (nano % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return frac === '' ? whole.toString() : `${whole}.${frac}`;
}
