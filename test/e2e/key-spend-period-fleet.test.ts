// A run-time key's daily max_spend on two instances sharing PostgreSQL (issue 45): made through the admin API of one
// instance, exactly 50 of 200 concurrent requests split unevenly between the two are served, each 402 saying when
// the Berlin day ends. A PATCH raising the cap (through instance A) applies on A at once and on B when B's key lookup
// cache lets go (5 s, on the injected cache clock: before then B still refuses on the old cap, as documented); then
// concurrent requests to B, then to A, get exactly the 10 more the new cap allows. The calendar clock moved to
// Berlin's midnight serves the key again on both, each day its own spend row.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatMoney } from '../../core/money/decimal.js';
import { parseOpenAIError, postChat } from '../helpers/chat-requests.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { storeBackends } from '../helpers/test-stores.js';

const ADMIN = 'spend-period-fleet-admin-token-0123456789';
/** 7 completion tokens at 1.00 per 1M: 7,000 nano-units a request, reserved exactly (max_tokens 7, input free). */
const COST = BigInt(DEFAULT_USAGE.completion) * 1000n;
const EVENING = Date.parse('2026-11-29T22:00:00Z');
const BERLIN_MIDNIGHT = Date.parse('2026-11-29T23:00:00Z');

function config(storeUrl: string, upstream: string): string {
  return `server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 5000, admin_token: ${ADMIN} }
store: { url: "${storeUrl}" }
pricing:
  models:
    "gpt-4o": { input: 0, output: 1.00 }
groups:
  pro: { models: ["*"] }
channels:
  - { name: up, type: openai, base_url: "${upstream}", keys: [sk-up], models: ["gpt-*"] }
`;
}

const postgres = storeBackends().find((b) => b.name === 'postgres');

describe('a run-time key with a daily max_spend, exact on two instances (postgres)', { skip: postgres === undefined ? 'no postgres backend' : postgres.skip }, () => {
  const upstream = new FakeOpenAI('up');
  let db: { readonly url: string; cleanup(): Promise<void> };
  const gateways: GatewayUnderTest[] = [];
  let now = EVENING;
  // Not 0: the cache reads a start of 0 as "no TTL".
  let cacheNow = 1_000_000;

  before(async () => {
    await upstream.start();
    db = await (postgres as NonNullable<typeof postgres>).fresh();
    for (let i = 0; i < 2; i++) gateways.push(await startGatewayUnderTest(config(db.url, upstream.url), { clock: () => now, keyCacheClock: () => cacheNow }));
  });
  after(async () => {
    for (const g of gateways) await g.stop();
    await upstream.close();
    await db?.cleanup();
  });

  const [a, b] = [(): GatewayUnderTest => gateways[0] as GatewayUnderTest, (): GatewayUnderTest => gateways[1] as GatewayUnderTest];

  async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await fetch(`${a().url}${path}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  /** `count` concurrent requests, 7 of each 20 to A and the rest to B (or all to `only`'s one); statuses counted, 402s' reset headers. */
  async function burst(key: string, count: number, from: number, only?: readonly GatewayUnderTest[]): Promise<{ ok: number; refused: number; resets: Set<string | null> }> {
    const answers = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const target = only?.[0] ?? (i % 20 < 7 ? a() : b());
        const res = await postChat(target.url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, messages: [{ role: 'user', content: `hi ${from + i}` }] }, { key });
        const text = await res.text();
        if (res.status === 402) assert.equal(parseOpenAIError(text).code, 'max_spend_reached');
        return { status: res.status, reset: res.headers.get('x-gateway-budget-reset') };
      }),
    );
    const other = answers.filter((x) => x.status !== 200 && x.status !== 402);
    assert.deepEqual(other, [], 'only 200s and 402s');
    return { ok: answers.filter((x) => x.status === 200).length, refused: answers.filter((x) => x.status === 402).length, resets: new Set(answers.filter((x) => x.status === 402).map((x) => x.reset)) };
  }

  it('is exact, follows a PATCH on both instances, and turns with the day', async () => {
    const created = await admin('POST', '/admin/keys', { name: 'daily', group: 'pro', max_spend: { amount: formatMoney(COST * 50n), period: 'day', timezone: 'Europe/Berlin' } });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const key = created.json['key'] as string;
    const id = created.json['id'] as string;

    assert.deepEqual(await burst(key, 200, 0), { ok: 50, refused: 150, resets: new Set(['2026-11-29T23:00:00.000Z']) });
    assert.equal(upstream.requests.length, 50);

    const raised = await admin('PATCH', `/admin/keys/${id}`, { max_spend: { amount: formatMoney(COST * 60n), period: 'day', timezone: 'Europe/Berlin' } });
    assert.equal(raised.status, 200, JSON.stringify(raised.json));
    // A applies it at once (one of the ten more); B looked the key up less than its cache's 5 s ago: the old cap
    // still refuses there.
    const ask = (g: GatewayUnderTest, i: number): Promise<Response> => postChat(g.url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, messages: [{ role: 'user', content: `one ${i}` }] }, { key });
    assert.equal((await ask(a(), 1000)).status, 200);
    assert.equal((await ask(b(), 1001)).status, 402);
    // B's cache lets go: 40 concurrent requests to B, then 40 to A, get exactly the nine left of the new cap between
    // them (A may still hold one of them: a hold takes a quarter of what is left, here two requests' worth, so B
    // gets at least eight, which it could not on the old cap); then neither serves.
    cacheNow += 5_001;
    const onB = await burst(key, 40, 2000, [b()]);
    const onA = await burst(key, 40, 2100, [a()]);
    assert.ok(onB.ok >= 8, `B served ${onB.ok}`);
    assert.equal(onB.ok + onA.ok, 9);
    assert.deepEqual([...onB.resets, ...onA.resets], ['2026-11-29T23:00:00.000Z', '2026-11-29T23:00:00.000Z']);
    for (const [i, g] of gateways.entries()) assert.equal((await ask(g, 2500 + i)).status, 402);
    assert.equal(upstream.requests.length, 60);

    now = BERLIN_MIDNIGHT;
    for (const [i, g] of gateways.entries()) assert.equal((await ask(g, 3000 + i)).status, 200, 'the next day is a new budget');
    for (const g of gateways) await g.gateway.runtime.deps.writer.flush();
    const ledger = a().gateway.runtime.deps.store.ledger;
    const spends = await ledger.keySpends([id, `${id}@2026-11-28T23:00:00.000Z`, `${id}@2026-11-29T23:00:00.000Z`]);
    assert.equal(spends.get(`${id}@2026-11-28T23:00:00.000Z`), COST * 60n);
    assert.equal(spends.get(`${id}@2026-11-29T23:00:00.000Z`), COST * 2n);
    assert.equal(spends.get(id), COST * 62n);
  });
});
