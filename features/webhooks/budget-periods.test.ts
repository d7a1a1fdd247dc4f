// budget_reached for a daily max_spend, in a running gateway told to a receiver over HTTP: the scan compares the
// current period's spend (not the lifetime's) with the cap, on the gateway's calendar clock (a test's, moved by hand),
// and names the occurrence by the period's start, so it is told once in a day that reached the cap and again in the
// next day that reaches it, never for a day below it, however often the scan runs.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postChat } from '../../test/helpers/chat-requests.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../../test/helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';
import { until } from '../../test/helpers/poll.js';
import { WebhookReceiver } from '../../test/helpers/webhook-receiver.js';
import { WEBHOOK_STORE } from './store-part.js';

const KEY = 'sk-webhook-daily-0123456789abcdef';
const SECRET = `whsec_${Buffer.from('thirty-two-bytes-of-hook-secret!').toString('base64')}`;
/** 7 completion tokens at 1.00 per 1M: 7,000 nano-units a request; the day's cap is two requests. */
const COST = BigInt(DEFAULT_USAGE.completion) * 1000n;
const CAP = `0.${(COST * 2n).toString().padStart(9, '0')}`;
const DAY_1 = Date.parse('2030-03-01T12:00:00Z');
const DAY_2 = Date.parse('2030-03-02T12:00:00Z');
const DAY_3 = Date.parse('2030-03-03T12:00:00Z');

describe('budget_reached of a daily max_spend', () => {
  const upstream = new FakeOpenAI('up');
  let receiver: WebhookReceiver;
  let gw: GatewayUnderTest;
  let now = DAY_1;

  before(async () => {
    await upstream.start();
    receiver = await new WebhookReceiver().start();
    gw = await startGatewayUnderTest(
      [
        'server: { host: 127.0.0.1, port: 0 }',
        'store: { url: "sqlite:./gateway.db" }',
        'pricing:',
        '  models:',
        '    "gpt-4o": { input: 0, output: 1.00 }',
        'groups: { pro: { models: ["*"] } }',
        `keys: [{ name: daily, key: ${KEY}, group: pro, max_spend: { amount: "${CAP}", period: day } }]`,
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

  /** One request of the key's; its charge written before the next scan reads the spend. */
  const spend = async (): Promise<void> => {
    const res = await postChat(gw.url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, messages: [{ role: 'user', content: 'hi' }] }, { key: KEY });
    assert.equal(res.status, 200, await res.text());
    await gw.gateway.runtime.deps.writer.flush();
  };
  const events = (): Record<string, unknown>[] => receiver.received.map((r) => (JSON.parse(r.raw.toString('utf8')) as { data: Record<string, unknown> }).data);

  it("is told once in each day that reached the cap, with that day's spend and period, never for the lifetime spend", async () => {
    // Day 1: half the cap. Day 2: half, so the lifetime spend is at the cap while the day's is not; then the day's too.
    await spend();
    now = DAY_2;
    await spend();
    await spend();
    const first = await until('the day 2 event', () => events()[0], { timeoutMs: 10_000, intervalMs: 20 });
    assert.deepEqual(first, {
      scope: 'key',
      key_id: 'config:daily',
      key_name: 'daily',
      account: null,
      max_spend: '0.000014',
      spent: '0.000014',
      period: 'day',
      timezone: 'UTC',
      period_start: '2030-03-02T00:00:00.000Z',
      resets_at: '2030-03-03T00:00:00.000Z',
    });

    // Day 3 reaches the cap again: a new occurrence.
    now = DAY_3;
    await spend();
    await spend();
    const second = await until('the day 3 event', () => events()[1], { timeoutMs: 10_000, intervalMs: 20 });
    assert.equal(second['period_start'], '2030-03-03T00:00:00.000Z');
    assert.equal(second['spent'], '0.000014');

    // Two occurrences in all (the scans that ran meanwhile kept nothing more), each delivered once.
    const outbox = gw.gateway.runtime.deps.store.part(WEBHOOK_STORE).outbox;
    await until('both delivered', async () => ((await outbox.counts()).delivered === 2 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    assert.deepEqual(await outbox.counts(), { pending: 0, delivered: 2, failed: 0 });
    assert.equal(receiver.received.length, 2);
  });
});
