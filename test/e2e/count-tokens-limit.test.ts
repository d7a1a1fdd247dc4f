// count_tokens has a rate limit of its own (issue 40): by default 100 requests per minute per key on the route, as
// Anthropic limits token counting apart from messages. A key past it gets 429 in Anthropic's shape with the
// rate-limit headers, never sent upstream; the limit is not the key's messages limits (neither uses up the other);
// count_tokens stays free, so a key without money is served, up to the limit, and charged nothing. A route written in
// gateway.yaml sets another figure. The limiter runs on a clock the test moves (no minute is waited).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { MemoryLimiter } from '../../core/limits/memory-limiter.js';
import { FakeAnthropic } from '../helpers/fake-anthropic.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const KEY = 'sk-count-limited-0123456789';
const BROKE = 'sk-count-broke-01234567890';
const MODEL = 'claude-sonnet-4-5';
const COUNT = { model: MODEL, messages: [{ role: 'user', content: 'how many tokens?' }] };

function config(upstream: string, routes = ''): string {
  return `server: { port: 0, host: 127.0.0.1, admin_token: test-admin-token-0123456789 }
store: { url: "sqlite:./gateway.db" }
channels:
  - { name: claude, type: anthropic, base_url: "${upstream}", keys: [sk-ant-up-0123456789], models: ["claude-*"], models_refresh_ms: 0 }
groups:
  paced: { models: ["*"], limits: { rpm: 3 } }
pricing: { unpriced: free, models: { "claude-*": { input: "3", output: "15" } } }
accounts:
  - { name: empty }
keys:
  - { name: counter, key: ${KEY}, group: paced }
  - { name: broke, key: ${BROKE}, group: paced, account: empty }
${routes}`;
}

async function countTokens(gw: GatewayUnderTest, key: string): Promise<Response> {
  return fetch(`${gw.url}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify(COUNT),
  });
}

async function statuses(answers: readonly Response[]): Promise<Record<number, number>> {
  const out: Record<number, number> = {};
  for (const r of answers) {
    out[r.status] = (out[r.status] ?? 0) + 1;
    await r.arrayBuffer();
  }
  return out;
}

describe('count_tokens: a rate limit of its own, by default', () => {
  const claude = new FakeAnthropic('claude');
  let clock = 1_900_000_000_000;
  const limiter = new MemoryLimiter({ now: () => clock });
  let gw: GatewayUnderTest;
  const counted = (): number => claude.requests.filter((r) => r.path === '/v1/messages/count_tokens').length;

  before(async () => {
    await claude.start();
    gw = await startGatewayUnderTest(config(claude.url), { limiter });
  });
  after(async () => {
    await gw.stop();
    await claude.close();
  });

  it('100 per minute per key: the 101st gets 429 in Anthropic\'s shape with the headers, never sent upstream', async () => {
    clock += 60_000;
    const before = counted();
    const client = new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 });
    const first = await client.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'how many tokens?' }] }).withResponse();
    assert.equal(first.data.input_tokens, 1234);
    assert.equal(first.response.headers.get('anthropic-ratelimit-requests-limit'), '100');
    assert.equal(first.response.headers.get('anthropic-ratelimit-requests-remaining'), '99');
    assert.deepEqual(await statuses(await Promise.all(Array.from({ length: 99 }, () => countTokens(gw, KEY)))), { 200: 99 });
    const refused = await countTokens(gw, KEY);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('anthropic-ratelimit-requests-limit'), '100');
    assert.equal(refused.headers.get('anthropic-ratelimit-requests-remaining'), '0');
    assert.match(String(refused.headers.get('anthropic-ratelimit-requests-reset')), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(refused.headers.get('retry-after'), '1', 'one request refills every 0.6 s');
    const error = (await refused.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(error.type, 'error');
    assert.equal(error.error.type, 'rate_limit_error');
    assert.match(error.error.message, /^Rate limit reached for key "counter" on \/v1\/messages\/count_tokens on requests per min \(RPM\): Limit 100, Used 100, Requested 1\./);
    // The SDK reads it as a rate limit.
    await assert.rejects(client.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }), Anthropic.RateLimitError);
    assert.equal(counted() - before, 100, 'a refused count never reaches the upstream');
    // The refusal is recorded, as every limit's is.
    const records = (await gw.usage()).filter((r) => r.route === '/v1/messages/count_tokens' && r.keyName === 'counter');
    assert.equal(records.filter((r) => r.status === 429 && r.errorCode === 'GW_ERR_RATE_LIMITED').length, 2);
  });

  it("apart from the key's messages limits: neither uses up the other", async () => {
    clock += 60_000;
    // Counting to the route's limit leaves the group's rpm 3 on messages whole...
    assert.deepEqual(await statuses(await Promise.all(Array.from({ length: 100 }, () => countTokens(gw, KEY)))), { 200: 100 });
    const messages = (): Promise<Response> =>
      fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
      });
    const sent = await Promise.all(Array.from({ length: 4 }, messages));
    assert.deepEqual(
      sent.map((r) => r.headers.get('anthropic-ratelimit-requests-limit')),
      ['3', '3', '3', '3'],
      'messages answer with the key\'s own limit',
    );
    assert.deepEqual(await statuses(sent), { 200: 3, 429: 1 });
    // ...and messages exhausted leave counting as it was: a minute later it has its 100 again.
    clock += 60_000;
    assert.deepEqual(await statuses(await Promise.all(Array.from({ length: 4 }, messages))), { 200: 3, 429: 1 });
    assert.deepEqual(await statuses(await Promise.all(Array.from({ length: 101 }, () => countTokens(gw, KEY)))), { 200: 100, 429: 1 });
  });

  it('free: a key whose account has no money counts up to the limit, charged nothing, then gets 429 (not 402)', async () => {
    clock += 60_000;
    const answers = await Promise.all(Array.from({ length: 104 }, () => countTokens(gw, BROKE)));
    assert.deepEqual(await statuses(answers), { 200: 100, 429: 4 });
    const account = (await (await fetch(`${gw.url}/admin/accounts/empty`, { headers: { authorization: 'Bearer test-admin-token-0123456789' } })).json()) as Record<string, unknown>;
    assert.equal(account['balance'], '0', JSON.stringify(account));
    const records = (await gw.usage()).filter((r) => r.keyName === 'broke');
    assert.ok(records.every((r) => r.cost === undefined || r.cost === 0n), 'no count is charged');
  });
});

describe('count_tokens: route_rpm set in gateway.yaml', () => {
  const claude = new FakeAnthropic('claude');
  const limiter = new MemoryLimiter({ now: () => 1_900_000_000_000 });
  let gw: GatewayUnderTest;

  before(async () => {
    await claude.start();
    gw = await startGatewayUnderTest(
      config(
        claude.url,
        `routes:
  - path: /v1/messages/count_tokens
    plugins: [{ use: auth }, { use: rate-limit, with: { route_rpm: 5 } }, { use: meter }, { use: relay }]
`,
      ),
      { limiter },
    );
  });
  after(async () => {
    await gw.stop();
    await claude.close();
  });

  it('admits that many a minute per key, each key on its own', async () => {
    assert.deepEqual(await statuses(await Promise.all(Array.from({ length: 8 }, () => countTokens(gw, KEY)))), { 200: 5, 429: 3 });
    assert.deepEqual(await statuses(await Promise.all(Array.from({ length: 6 }, () => countTokens(gw, BROKE)))), { 200: 5, 429: 1 });
  });
});
