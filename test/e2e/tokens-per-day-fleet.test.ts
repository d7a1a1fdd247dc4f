// limits.tokens_per_day exact across instances (issue 45): a key allowed 51 requests' estimates less one token a
// Berlin day gets exactly 50 of 200 concurrent requests split unevenly between two gateways sharing Redis (their
// answers held at the upstream until all 200 were decided), 150 of 429 saying when the day ends (retry-after,
// x-gateway-budget-reset, the message). When the 50 end, the day's count is corrected to their usage on both
// (/v1/me), which admits exactly the requests the corrected count leaves room for, one at a time; the calendar clock
// (injected, shared by both) moved to Berlin's midnight serves the key again. Without Redis, one gateway does the
// same with its own count.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { parseOpenAIError, postChat } from '../helpers/chat-requests.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';
import { storeBackends } from '../helpers/test-stores.js';

const KEY = 'sk-tpd-0123456789abcdefghijkl';
const REQUESTS = 200;
const ADMITTED = 50;
/** 23:00 on 29 November in Berlin (UTC+1): the day ends an hour later, at 23:00 UTC. */
const EVENING = Date.parse('2026-11-29T22:00:00Z');
const BERLIN_MIDNIGHT = Date.parse('2026-11-29T23:00:00Z');
const MAX_TOKENS = 7;
const REDIS_URL = process.env['GATEWAY_TEST_REDIS_URL'];

/** Every request's body is as long as every other's: the same estimate for each. */
function body(i: number): Record<string, unknown> {
  return { model: 'gpt-4o', max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: `hi ${String(i).padStart(5, '0')}` }] };
}
/** What the gateway reserves for one: its body's bytes / 4, rounded up, and its max_tokens (core/money/estimate.ts). */
const ESTIMATE = Math.ceil(JSON.stringify(body(0)).length / 4) + MAX_TOKENS;
/** 51 estimates less one token: 50 fit while all are in flight, the 51st does not. */
const DAY = ESTIMATE * (ADMITTED + 1) - 1;
/** What each answer reports using: a little less than its estimate (the correction frees the difference). */
const USED = ESTIMATE - 2;

function config(storeUrl: string, upstream: string, redis: string | null): string {
  return `server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 5000 }
store: { url: "${storeUrl}" }
${redis === null ? '' : `redis: { url: "${REDIS_URL as string}", prefix: "${redis}", on_failure: closed, timeout_ms: 1000 }`}
groups:
  pro: { models: ["*"] }
keys:
  - { name: daily, key: ${KEY}, group: pro, limits: { tokens_per_day: { tokens: ${DAY}, timezone: Europe/Berlin } } }
channels:
  - { name: up, type: openai, base_url: "${upstream}", keys: [sk-up], models: ["gpt-*"], models_refresh_ms: 0 }
`;
}

const variants = [
  { name: 'two instances sharing Redis and PostgreSQL', instances: 2, backend: storeBackends().find((b) => b.name === 'postgres'), redis: true },
  { name: 'one instance, its own count', instances: 1, backend: storeBackends().find((b) => b.name === 'sqlite'), redis: false },
];

for (const variant of variants) {
  const skip = variant.redis && REDIS_URL === undefined ? 'GATEWAY_TEST_REDIS_URL is not set (no Redis server to test against; .ci/run sets it)' : variant.backend?.skip;
  describe(`tokens_per_day exact and reset (${variant.name})`, { skip }, () => {
    const upstream = new FakeOpenAI('up');
    const prefix = `gwtest:${process.pid}:${randomUUID()}:`;
    let db: { readonly url: string; cleanup(): Promise<void> };
    const gateways: GatewayUnderTest[] = [];
    let now = EVENING;
    const clock = (): number => now;

    before(async () => {
      await upstream.start();
      db = await (variant.backend as NonNullable<typeof variant.backend>).fresh();
      for (let i = 0; i < variant.instances; i++) gateways.push(await startGatewayUnderTest(config(db.url, upstream.url, variant.redis ? prefix : null), { clock }));
    });

    after(async () => {
      for (const g of gateways) await g.stop();
      await upstream.close();
      await db?.cleanup();
      if (variant.redis) {
        const client = createClient({ url: REDIS_URL ?? 'redis://127.0.0.1:6379' });
        await client.connect();
        for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length > 0) await client.del(keys);
        client.destroy();
      }
    });

    const me = async (url: string): Promise<Record<string, unknown>> => {
      const res = await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${KEY}` } });
      assert.equal(res.status, 200);
      return ((await res.json()) as { tokens_per_day: Record<string, unknown> }).tokens_per_day;
    };
    /** Waits until every instance counts `used` tokens today: a request's correction is sent as it ends. */
    const counted = async (used: number): Promise<void> => {
      for (const g of gateways) await until(`the day's count at ${used}`, async () => ((await me(g.url))['used'] === used ? true : undefined), { timeoutMs: 5000, intervalMs: 10 });
    };

    it(`admits exactly ${ADMITTED} of ${REQUESTS} concurrent requests, corrects the count to their usage, and serves again the next day`, async () => {
      upstream.reply = () => ({ kind: 'completion', usage: { prompt: USED - 3, completion: 3, cached: 0, reasoning: 0 } });
      // Every admitted request is held at the upstream until all 200 were decided: none ends (and is corrected) early.
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      upstream.gate = () => held;
      let answered = 0;
      const answers = Array.from({ length: REQUESTS }, async (_, i) => {
        const target = gateways[variant.instances === 1 || i % 20 < 7 ? 0 : 1] as GatewayUnderTest;
        const res = await postChat(target.url, body(i), { key: KEY });
        answered++;
        return { status: res.status, reset: res.headers.get('x-gateway-budget-reset'), retryAfter: res.headers.get('retry-after'), text: await res.text() };
      });
      // Decided: the refused answered, the admitted at the upstream (where they wait).
      await until('every request decided', () => (answered + upstream.requests.length === REQUESTS ? true : undefined), { timeoutMs: 20_000, intervalMs: 10 });
      assert.equal(upstream.requests.length, ADMITTED, 'admitted while all were in flight');
      release();
      const done = await Promise.all(answers);
      upstream.gate = null;
      const count = (status: number): number => done.filter((a) => a.status === status).length;
      assert.deepEqual({ ok: count(200), limited: count(429), other: REQUESTS - count(200) - count(429) }, { ok: ADMITTED, limited: REQUESTS - ADMITTED, other: 0 });
      assert.equal(upstream.requests.length, ADMITTED, 'a refused request reaches no upstream');
      for (const refused of done.filter((a) => a.status === 429)) {
        assert.equal(refused.reset, '2026-11-29T23:00:00.000Z');
        assert.equal(refused.retryAfter, '3600');
        const error = parseOpenAIError(refused.text);
        assert.equal(error.code, 'rate_limit_exceeded');
        assert.equal(error.message, `Rate limit reached for key "daily" on tokens per day (TPD): Limit ${DAY}, Used ${ESTIMATE * ADMITTED}, Requested ${ESTIMATE}. Please try again in 1h0m0s (the day resets at 2026-11-29T23:00:00.000Z).`);
      }

      // The 50 ended: the count is what they used, on every instance.
      await counted(ADMITTED * USED);
      assert.deepEqual(await me((gateways[variant.instances - 1] as GatewayUnderTest).url), {
        limit: DAY,
        used: ADMITTED * USED,
        left: DAY - ADMITTED * USED,
        period: 'day',
        timezone: 'Europe/Berlin',
        resets_at: '2026-11-29T23:00:00.000Z',
      });

      // One at a time, alternating instances: admitted while the corrected count plus an estimate fits.
      let used = ADMITTED * USED;
      let expected = 0;
      while (used + ESTIMATE <= DAY) {
        used += USED;
        expected++;
      }
      assert.ok(expected >= 2, `the corrected count leaves room for ${expected}`);
      for (let i = 0; ; i++) {
        const res = await postChat((gateways[i % variant.instances] as GatewayUnderTest).url, body(1000 + i), { key: KEY });
        await res.arrayBuffer();
        if (res.status === 429) {
          assert.equal(i, expected, `${i} served after the correction`);
          break;
        }
        assert.equal(res.status, 200);
        await counted(ADMITTED * USED + (i + 1) * USED);
      }

      // Still the same day a second before midnight: refused on every instance.
      now = BERLIN_MIDNIGHT - 1000;
      for (const g of gateways) {
        const res = await postChat(g.url, body(2000), { key: KEY });
        assert.equal(res.status, 429);
        assert.equal(res.headers.get('retry-after'), '1');
        await res.arrayBuffer();
      }

      // The day turns in Berlin: served again on every instance, counted in the new day.
      now = BERLIN_MIDNIGHT;
      for (const [i, g] of gateways.entries()) {
        const res = await postChat(g.url, body(3000 + i), { key: KEY });
        assert.equal(res.status, 200, await res.text());
      }
      await counted(variant.instances * USED);
      assert.equal((await me((gateways[0] as GatewayUnderTest).url))['resets_at'], '2026-11-30T23:00:00.000Z');
    });
  });
}
