// A run-time key's max_spend per day, week or month (issue 45), set through the admin API: created with a daily cap
// in Europe/Berlin, the key is refused past it with the 402 that says when the day ends, listed back with the day's
// spend and end, served again once the (injected) calendar day turns; an unknown timezone or period is a 400 naming
// the field and stores nothing; PATCH to a plain amount makes it a lifetime cap again, null clears it. On two
// instances sharing PostgreSQL the daily cap is exact, and a PATCH of it reaches the other instance when its key
// lookup cache lets go (5 s on the injected cache clock), after which both are exact on the new amount.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatMoney } from '../../core/money/decimal.js';
import { parseOpenAIError, postChat } from '../helpers/chat-requests.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { storeBackends } from '../helpers/test-stores.js';

const ADMIN = 'spend-period-admin-token-0123456789';
/** 7 completion tokens at 1.00 per 1M: 7,000 nano-units a request, reserved exactly (max_tokens 7, input free). */
const COST = BigInt(DEFAULT_USAGE.completion) * 1000n;
/** 23:00 on 29 November in Berlin (UTC+1): the day ends an hour later, at 23:00 UTC. */
const EVENING = Date.parse('2026-11-29T22:00:00Z');
const BERLIN_MIDNIGHT = Date.parse('2026-11-29T23:00:00Z');

/** `n` requests' cost as the gateway writes a decimal. */
function costOf(n: number): string {
  return formatMoney(COST * BigInt(n));
}

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

async function admin(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

function ask(url: string, key: string, i: number): Promise<Response> {
  return postChat(url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, messages: [{ role: 'user', content: `hi ${i}` }] }, { key });
}

describe('a run-time key with a daily max_spend through the admin API (sqlite)', () => {
  const upstream = new FakeOpenAI('up');
  let gw: GatewayUnderTest;
  let db: { readonly url: string; cleanup(): Promise<void> };
  let now = EVENING;
  let secret = '';
  let id = '';

  before(async () => {
    await upstream.start();
    db = await (storeBackends().find((b) => b.name === 'sqlite') ?? assert.fail('no sqlite')).fresh();
    gw = await startGatewayUnderTest(config(db.url, upstream.url), { clock: () => now });
  });
  after(async () => {
    await gw.stop();
    await upstream.close();
    await db.cleanup();
  });

  const listed = async (id: string): Promise<Record<string, unknown> | undefined> =>
    ((await admin(gw.url, 'GET', '/admin/keys')).json['data'] as Record<string, unknown>[]).find((k) => k['id'] === id);

  it('refuses an unknown timezone or period with a 400 naming the field, and stores nothing', async () => {
    for (const [max_spend, param] of [
      [{ amount: '1.00', period: 'day', timezone: 'Mars/Olympus_Mons' }, 'max_spend.timezone'],
      [{ amount: '1.00', period: 'fortnight' }, 'max_spend.period'],
      [{ amount: '1.0000000001', period: 'day' }, 'max_spend.amount'],
      [{ amount: '1.00', period: 'day', every: 2 }, 'max_spend.every'],
    ] as const) {
      const res = await admin(gw.url, 'POST', '/admin/keys', { name: 'bad', group: 'pro', max_spend });
      assert.equal(res.status, 400, JSON.stringify(res.json));
      const error = res.json['error'] as Record<string, unknown>;
      assert.equal(error['param'], param);
      assert.equal(error['code'], 'invalid_value');
    }
    assert.equal(((await admin(gw.url, 'GET', '/admin/keys')).json['data'] as unknown[]).length, 0, 'nothing stored');
  });

  it('serves the day cap exactly, says when it resets, lists it back, and serves again the next day', async () => {
    const created = await admin(gw.url, 'POST', '/admin/keys', { name: 'daily', group: 'pro', max_spend: { amount: costOf(3), period: 'day', timezone: 'Europe/Berlin' } });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const key = created.json['key'] as string;
    secret = key;
    id = created.json['id'] as string;
    assert.equal(created.json['max_spend'], costOf(3));
    assert.deepEqual(created.json['max_spend_period'], { period: 'day', timezone: 'Europe/Berlin', spend: '0', resets_at: '2026-11-29T23:00:00.000Z' });

    for (let i = 0; i < 3; i++) assert.equal((await ask(gw.url, key, i)).status, 200);
    const refused = await ask(gw.url, key, 3);
    assert.equal(refused.status, 402);
    assert.equal(refused.headers.get('x-gateway-budget-reset'), '2026-11-29T23:00:00.000Z');
    assert.equal(refused.headers.get('retry-after'), '3600');
    const error = parseOpenAIError(await refused.text());
    assert.equal(error.code, 'max_spend_reached');
    assert.match(error.message, /resets at 2026-11-29T23:00:00\.000Z/);
    assert.equal(upstream.requests.length, 3);

    await gw.gateway.runtime.deps.writer.flush();
    assert.deepEqual((await listed(id))?.['max_spend_period'], { period: 'day', timezone: 'Europe/Berlin', spend: costOf(3), resets_at: '2026-11-29T23:00:00.000Z' });
    const me = (await (await fetch(`${gw.url}/v1/me`, { headers: { authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;
    assert.equal(me['max_spend_left'], '0');
    assert.deepEqual(me['max_spend_period'], { period: 'day', timezone: 'Europe/Berlin', spend: costOf(3), resets_at: '2026-11-29T23:00:00.000Z' });

    // A PATCH with an unknown zone: 400, the cap unchanged.
    const bad = await admin(gw.url, 'PATCH', `/admin/keys/${id}`, { max_spend: { amount: '9', period: 'day', timezone: 'Europe/Atlantis' } });
    assert.equal(bad.status, 400);
    assert.equal((bad.json['error'] as Record<string, unknown>)['param'], 'max_spend.timezone');
    assert.equal((await listed(id))?.['max_spend'], costOf(3));

    now = BERLIN_MIDNIGHT;
    assert.equal((await ask(gw.url, key, 4)).status, 200, 'the next day is a new budget');
    await gw.gateway.runtime.deps.writer.flush();
    assert.deepEqual((await listed(id))?.['max_spend_period'], { period: 'day', timezone: 'Europe/Berlin', spend: costOf(1), resets_at: '2026-11-30T23:00:00.000Z' });
  });

  it('PATCH to a plain amount is a lifetime cap again (no reset said), and null clears it', async () => {
    // Four requests were charged in all: a lifetime cap of five leaves one.
    const patched = await admin(gw.url, 'PATCH', `/admin/keys/${id}`, { max_spend: costOf(5) });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    assert.equal(patched.json['max_spend'], costOf(5));
    assert.equal(patched.json['max_spend_period'], undefined, 'a lifetime cap has no period');
    assert.equal((await ask(gw.url, secret, 5)).status, 200);
    const refused = await ask(gw.url, secret, 6);
    assert.equal(refused.status, 402);
    assert.equal(refused.headers.get('x-gateway-budget-reset'), null);
    const error = parseOpenAIError(await refused.text());
    assert.equal(error.code, 'max_spend_reached');
    assert.doesNotMatch(error.message, /resets/);

    const cleared = await admin(gw.url, 'PATCH', `/admin/keys/${id}`, { max_spend: null });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.json['max_spend'], undefined);
    assert.equal((await ask(gw.url, secret, 7)).status, 200, 'no cap: served');
  });
});
