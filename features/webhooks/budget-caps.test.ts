// budget_reached for the caps the scan used to miss, in a running gateway told to a receiver over HTTP: a run-time
// key's max_spend per day (the keys table's period), a declared account's max_spend per day (gateway.yaml's
// accounts[].max_spend, over all its keys) and a run-time account's lifetime max_spend (the admin API's). Each is
// told once per period that reaches it (the lifetime cap once), on the gateway's calendar clock (a test's, moved by
// hand), with the key's event's fields and whose cap it is (`scope`).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatMoney } from '../../core/money/decimal.js';
import { postChat } from '../../test/helpers/chat-requests.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../../test/helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';
import { until } from '../../test/helpers/poll.js';
import { WebhookReceiver } from '../../test/helpers/webhook-receiver.js';
import { WEBHOOK_STORE } from './store-part.js';

const ADMIN = 'budget-caps-admin-token-0123456789';
const ACME_KEY = 'sk-webhook-acme-0123456789abcdef';
const SECRET = `whsec_${Buffer.from('thirty-two-bytes-of-hook-secret!').toString('base64')}`;
/** 7 completion tokens at 1.00 per 1M: 7,000 nano-units a request; every cap here is two requests. */
const COST = BigInt(DEFAULT_USAGE.completion) * 1000n;
const CAP = formatMoney(COST * 2n);
const DAY_1 = Date.parse('2030-03-01T12:00:00Z');
const DAY_2 = Date.parse('2030-03-02T12:00:00Z');

describe("budget_reached of a run-time key's daily max_spend and of accounts' max_spend", () => {
  const upstream = new FakeOpenAI('up');
  let receiver: WebhookReceiver;
  let gw: GatewayUnderTest;
  let now = DAY_1;

  before(async () => {
    await upstream.start();
    receiver = await new WebhookReceiver().start();
    gw = await startGatewayUnderTest(
      [
        `server: { host: 127.0.0.1, port: 0, admin_token: ${ADMIN} }`,
        'store: { url: "sqlite:./gateway.db" }',
        'pricing:',
        '  models:',
        '    "gpt-4o": { input: 0, output: 1.00 }',
        'groups: { pro: { models: ["*"] } }',
        `accounts: [{ name: acme, max_spend: { amount: "${CAP}", period: day } }]`,
        `keys: [{ name: acme-one, key: ${ACME_KEY}, group: pro, account: acme }]`,
        'channels:',
        `  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up], models: ["gpt-*"] }`,
        'webhooks:',
        `  - { url: "${receiver.url}/hooks", events: [budget_reached], secret: "${SECRET}", allow_private: true }`,
        '',
      ].join('\n'),
      { clock: () => now, webhookEveryMs: 20 },
    );
  });
  after(async () => {
    await gw?.stop();
    await receiver?.close();
    await upstream.close();
  });

  async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${gw.url}${path}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const json = (await res.json()) as Record<string, unknown>;
    assert.ok(res.status === 200 || res.status === 201, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
  /** One request of `key`'s; its charge written before the next scan reads the spend. */
  const spend = async (key: string): Promise<void> => {
    const res = await postChat(gw.url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, messages: [{ role: 'user', content: 'hi' }] }, { key });
    assert.equal(res.status, 200, await res.text());
    await gw.gateway.runtime.deps.writer.flush();
  };
  /** The caps' events (not an empty balance's), in the order received. */
  const events = (): Record<string, unknown>[] =>
    receiver.received.map((r) => (JSON.parse(r.raw.toString('utf8')) as { data: Record<string, unknown> }).data).filter((d) => d['max_spend'] !== undefined);
  const whose = (e: Record<string, unknown>): string => `${String(e['scope'])}:${String(e['key_id'] ?? e['account'])}:${String(e['period_start'] ?? 'life')}`;
  const told = (count: number, what: string): Promise<Record<string, unknown>[]> => until(what, () => (events().length >= count ? events() : undefined), { timeoutMs: 10_000, intervalMs: 20 });

  it('tells each cap once per period that reaches it (the lifetime one once), with its period and whose it is', async () => {
    await admin('POST', '/admin/accounts/acme/credit', { amount: '10', idempotency_key: 'acme-start' });
    await admin('POST', '/admin/accounts', { name: 'beta', max_spend: CAP });
    await admin('POST', '/admin/accounts/beta/credit', { amount: '10', idempotency_key: 'beta-start' });
    const daily = await admin('POST', '/admin/keys', { name: 'daily', group: 'pro', max_spend: { amount: CAP, period: 'day' } });
    const dailyKey = daily['key'] as string;
    const dailyId = daily['id'] as string;
    const betaKey = (await admin('POST', '/admin/keys', { name: 'beta-key', group: 'pro', account: 'beta' }))['key'] as string;

    // Day 1: each cap reached.
    for (const key of [dailyKey, dailyKey, ACME_KEY, ACME_KEY, betaKey, betaKey]) await spend(key);
    const day1 = await told(3, "day 1's three caps");
    const byWhose = new Map(day1.map((e) => [whose(e), e]));
    assert.deepEqual(byWhose.get(`key:${dailyId}:2030-03-01T00:00:00.000Z`), {
      scope: 'key',
      key_id: dailyId,
      key_name: 'daily',
      account: null,
      max_spend: CAP,
      spent: CAP,
      period: 'day',
      timezone: 'UTC',
      period_start: '2030-03-01T00:00:00.000Z',
      resets_at: '2030-03-02T00:00:00.000Z',
    });
    assert.deepEqual(byWhose.get('account_max_spend:acme:2030-03-01T00:00:00.000Z'), {
      scope: 'account_max_spend',
      account: 'acme',
      max_spend: CAP,
      spent: CAP,
      period: 'day',
      timezone: 'UTC',
      period_start: '2030-03-01T00:00:00.000Z',
      resets_at: '2030-03-02T00:00:00.000Z',
    });
    assert.deepEqual(byWhose.get('account_max_spend:beta:life'), { scope: 'account_max_spend', account: 'beta', max_spend: CAP, spent: CAP });

    // Day 2: the daily caps start again and are reached again; beta's lifetime cap is not told again.
    now = DAY_2;
    for (const key of [dailyKey, dailyKey, ACME_KEY, ACME_KEY]) await spend(key);
    const all = await told(5, "day 2's two caps");
    assert.deepEqual(all.slice(3).map(whose).sort(), [`account_max_spend:acme:2030-03-02T00:00:00.000Z`, `key:${dailyId}:2030-03-02T00:00:00.000Z`]);

    // Five occurrences of caps in all (the scans that ran meanwhile kept nothing more), each delivered once. (The
    // accounts' empty balances before their credits are told too, as scope `account`: not caps.)
    const outbox = gw.gateway.runtime.deps.store.part(WEBHOOK_STORE).outbox;
    const counts = await until(
      'all delivered',
      async () => {
        const c = await outbox.counts();
        return c.pending === 0 && c.delivered === receiver.received.length ? c : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 20 },
    );
    assert.equal(counts.failed, 0);
    assert.equal(events().length, 5);
    assert.equal(new Set(events().map(whose)).size, 5);
  });
});
