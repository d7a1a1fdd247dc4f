// tokens_per_day wherever limits are written, over HTTP on one gateway (its own count; the fleet's is
// tokens-per-day-fleet.test.ts): an account's weekly cap over all its keys (period: week, Monday first in Berlin),
// a group's cap of each key on one model, a request larger than a whole cap (never retried), and the refusals in
// Anthropic's shape too. The calendar clock is injected and moved by hand.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseOpenAIError, postChat, postRoute } from '../helpers/chat-requests.js';
import { FakeAnthropic } from '../helpers/fake-anthropic.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const A1 = 'sk-acct-one-0123456789abcdef';
const A2 = 'sk-acct-two-0123456789abcdef';
const MODEL_KEY = 'sk-model-cap-0123456789abcd';
const TINY = 'sk-tiny-day-0123456789abcdef';
/** Sunday 29 November 2026, 12:00 UTC: the Berlin week (from Monday 23rd) ends at Sunday 23:00 UTC. */
const SUNDAY = Date.parse('2026-11-29T12:00:00Z');
const WEEK_END = Date.parse('2026-11-29T23:00:00Z');

function body(model: string, text = 'hello'): Record<string, unknown> {
  return { model, max_tokens: 10, messages: [{ role: 'user', content: text }] };
}
const estimate = (b: Record<string, unknown>): number => Math.ceil(JSON.stringify(b).length / 4) + 10;

describe('tokens_per_day on accounts, group models, and past a whole cap', () => {
  const openai = new FakeOpenAI('up');
  const anthropic = new FakeAnthropic();
  let gw: GatewayUnderTest;
  let now = SUNDAY;
  const ONE = estimate(body('gpt-4o'));

  before(async () => {
    await openai.start();
    await anthropic.start();
    openai.reply = () => ({ kind: 'completion', usage: { prompt: ONE - 10, completion: 10, cached: 0, reasoning: 0 } });
    gw = await startGatewayUnderTest(
      `server: { host: 127.0.0.1, port: 0 }
pricing:
  models:
    "gpt-*": { input: 0, output: 0 }
groups:
  pro:
    models: ["*"]
    limits: { models: { "claude-*": { tokens_per_day: 1 } } }
accounts:
  - { name: acme, limits: { tokens_per_day: { tokens: ${3 * ONE}, period: week, timezone: Europe/Berlin } } }
keys:
  - { name: one, key: ${A1}, group: pro, account: acme }
  - { name: two, key: ${A2}, group: pro, account: acme }
  - { name: model-capped, key: ${MODEL_KEY}, group: pro }
  - { name: tiny, key: ${TINY}, group: pro, limits: { tokens_per_day: 5 } }
channels:
  - { name: up, type: openai, base_url: "${openai.url}", keys: [sk-up], models: ["gpt-*"], models_refresh_ms: 0 }
  - { name: claude, type: anthropic, base_url: "${anthropic.url}", keys: [sk-ant], models: ["claude-*"], models_refresh_ms: 0 }
`,
      { clock: () => now },
    );
  });

  after(async () => {
    await gw?.stop();
    await openai.close();
    await anthropic.close();
  });

  it("an account's weekly cap counts all its keys together and says when its week ends", async () => {
    for (const key of [A1, A2, A1]) {
      const res = await postChat(gw.url, body('gpt-4o'), { key });
      assert.equal(res.status, 200, await res.text());
    }
    const refused = await postChat(gw.url, body('gpt-4o'), { key: A2 });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('x-gateway-budget-reset'), new Date(WEEK_END).toISOString());
    assert.equal(refused.headers.get('retry-after'), String((WEEK_END - SUNDAY) / 1000));
    const error = parseOpenAIError(await refused.text());
    assert.equal(error.code, 'rate_limit_exceeded');
    assert.match(error.message, /^Rate limit reached for account "acme" on tokens per week: Limit \d+, Used \d+, Requested \d+\. Please try again in 11h0m0s \(the week resets at 2026-11-29T23:00:00\.000Z\)\.$/);
    // Monday in Berlin: a new week.
    now = WEEK_END;
    const next = await postChat(gw.url, body('gpt-4o'), { key: A2 });
    assert.equal(next.status, 200, await next.text());
  });

  it("a group's cap of each key on some models applies on those models only, in Anthropic's shape there", async () => {
    const other = await postChat(gw.url, body('gpt-4o'), { key: MODEL_KEY });
    assert.equal(other.status, 200);
    await other.arrayBuffer();
    const capped = await postRoute(gw.url, '/v1/messages', MODEL_KEY, { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(capped.status, 429);
    assert.equal(capped.headers.get('x-should-retry'), 'false', 'more than a whole day: retrying cannot help');
    assert.equal(capped.headers.get('retry-after'), null);
    const answer = (await capped.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(answer.type, 'error');
    assert.equal(answer.error.type, 'rate_limit_error');
    assert.match(answer.error.message, /^Request too large for key "model-capped" on claude-\* on tokens per day \(TPD\): Limit 1, Requested \d+\./);
    assert.equal(anthropic.requests.length, 0, 'nothing reached the upstream');
  });

  it('a key limited by its day alone tells a request larger than the day not to retry (no rate header applies)', async () => {
    const res = await postChat(gw.url, body('gpt-4o'), { key: TINY });
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('x-should-retry'), 'false');
    assert.equal(res.headers.get('retry-after'), null);
    assert.equal(res.headers.get('x-ratelimit-limit-requests'), null);
    assert.match(parseOpenAIError(await res.text()).message, /^Request too large for key "tiny" on tokens per day \(TPD\): Limit 5, Requested \d+\. Send fewer tokens/);
  });
});
