// Rate limits on one instance (issue 24), over real HTTP against fake upstreams, with the gateway's limiter on a
// clock the test moves (never a minute's sleep): a key with rpm 10 gets exactly 10 of 25 quick requests on each
// model route, the other 15 a 429 in the route's shape with retry-after and the limit headers, never sent upstream;
// successes carry the headers too; a refilled bucket admits again. Tokens per minute are counted against an
// estimate and corrected to the recorded usage; requests in flight hold a slot until they end, however they end.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postRoute } from '../helpers/chat-requests.js';
import { MemoryLimiter } from '../../core/limits/memory-limiter.js';
import { FakeAnthropic } from '../helpers/fake-anthropic.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { FakeOpenAIImages } from '../helpers/fake-openai-images.js';
import { FakeResponses } from '../helpers/fake-responses.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { series } from '../helpers/metric-series.js';
import { until } from '../helpers/poll.js';

const RPM_KEY = 'sk-rpm-limited-0123456789';
const TPM_KEY = 'sk-tpm-limited-0123456789';
const SLOT_KEY = 'sk-slot-limited-012345678';
const ACCOUNT_KEY_A = 'sk-acct-limited-a-0123456';
const ACCOUNT_KEY_B = 'sk-acct-limited-b-0123456';

describe('rate limits on one instance', () => {
  const chat = new FakeOpenAI('chat');
  const responses = new FakeResponses('responses');
  const images = new FakeOpenAIImages('images');
  const claude = new FakeAnthropic('claude');
  let clock = 1_900_000_000_000;
  const limiter = new MemoryLimiter({ now: () => clock });
  let gw: GatewayUnderTest;
  const upstreamCalls = (): number => chat.requests.length + responses.requests.length + images.requests.length + claude.requests.length;

  before(async () => {
    for (const fake of [chat, responses, images, claude]) await fake.start();
    gw = await startGatewayUnderTest(
      `server: { port: 0, host: 127.0.0.1 }
store: { url: "sqlite:./gateway.db" }
channels:
  - { name: chat, type: openai, base_url: "${chat.url}", keys: [sk-up-chat], models: ["gpt-4o"], models_refresh_ms: 0 }
  - { name: responses, type: openai, base_url: "${responses.url}", keys: [sk-up-resp], models: ["gpt-5"], models_refresh_ms: 0 }
  - { name: images, type: openai, base_url: "${images.url}", keys: [sk-up-img], models: ["gpt-image-1"], models_refresh_ms: 0 }
  - { name: claude, type: anthropic, base_url: "${claude.url}", keys: [sk-ant-up], models: ["claude-*"], models_refresh_ms: 0 }
groups:
  paced:
    models: ["*"]
    limits: { rpm: 1000 }
  teams: { models: ["*"] }
pricing: { unpriced: free }
accounts:
  - { name: shared, limits: { rpm: 3 } }
keys:
  - { name: rpm-limited, key: ${RPM_KEY}, group: paced, limits: { rpm: 10 } }
  - { name: tpm-limited, key: ${TPM_KEY}, group: teams, limits: { tpm: 1000 } }
  - { name: slot-limited, key: ${SLOT_KEY}, group: teams, limits: { concurrency: 2 } }
  - { name: acct-a, key: ${ACCOUNT_KEY_A}, group: teams, account: shared }
  - { name: acct-b, key: ${ACCOUNT_KEY_B}, group: teams, account: shared }
`,
      { limiter },
    );
  });
  after(async () => {
    await gw.stop();
    for (const fake of [chat, responses, images, claude]) await fake.close();
  });

  const post = (path: string, key: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> => postRoute(gw.url, path, key, body, signal);

  const ROUTES: readonly [string, Record<string, unknown>][] = [
    ['/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }],
    ['/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }],
    ['/v1/responses', { model: 'gpt-5', input: 'hi' }],
    ['/v1/images/generations', { model: 'gpt-image-1', prompt: 'a lighthouse' }],
  ];

  for (const [path, body] of ROUTES) {
    it(`${path}: rpm 10 admits exactly 10 of 25 quick requests; 15 get 429 in the route's shape, none sent upstream`, async () => {
      clock += 60_000;
      const callsBefore = upstreamCalls();
      const answers = await Promise.all(Array.from({ length: 25 }, () => post(path, RPM_KEY, body)));
      const ok = answers.filter((r) => r.status === 200);
      const limited = answers.filter((r) => r.status === 429);
      assert.equal(ok.length, 10);
      assert.equal(limited.length, 15);
      assert.equal(upstreamCalls() - callsBefore, 10, 'a refused request never reaches an upstream');
      // Each answer has its record: the refusals with their status and code, no tokens and no cost.
      const ids = new Set(answers.map((r) => r.headers.get('x-request-id')));
      const recorded = (await gw.usage()).filter((r) => ids.has(r.requestId));
      assert.equal(recorded.filter((r) => r.status === 200).length, 10);
      const refusals = recorded.filter((r) => r.status === 429);
      assert.equal(refusals.length, 15);
      assert.ok(refusals.every((r) => r.errorCode === 'GW_ERR_RATE_LIMITED' && r.promptTokens === 0 && r.completionTokens === 0 && r.cost === undefined && r.channel === null));
      assert.ok(recorded.every((r) => r.keyName === 'rpm-limited' && r.route === path));
      const anthropic = path.startsWith('/v1/messages');
      const prefix = anthropic ? 'anthropic-ratelimit-requests-' : 'x-ratelimit-';
      const limitHeader = anthropic ? 'anthropic-ratelimit-requests-limit' : 'x-ratelimit-limit-requests';
      const remainingHeader = anthropic ? 'anthropic-ratelimit-requests-remaining' : 'x-ratelimit-remaining-requests';
      const resetHeader = anthropic ? 'anthropic-ratelimit-requests-reset' : 'x-ratelimit-reset-requests';
      // Successes carry the headers, remaining counting down (the key's own 10, tighter than its group's 1000).
      const remaining = ok.map((r) => Number(r.headers.get(remainingHeader))).sort((a, b) => a - b);
      assert.deepEqual(remaining, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], `${prefix} on successes`);
      for (const r of [...ok, ...limited]) assert.equal(r.headers.get(limitHeader), '10');
      const refusal = limited[0] as Response;
      assert.equal(refusal.headers.get('retry-after'), '6', 'one request refills every 6 s');
      if (anthropic) {
        assert.match(String(refusal.headers.get(resetHeader)), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        const error = (await refusal.json()) as { type: string; error: { type: string; message: string } };
        assert.equal(error.type, 'error');
        assert.equal(error.error.type, 'rate_limit_error');
        assert.match(error.error.message, /requests per min \(RPM\): Limit 10, Used 10, Requested 1\. Please try again in 6s\./);
      } else {
        assert.equal(refusal.headers.get(resetHeader), '1m0s');
        const error = (await refusal.json()) as { error: { type: string; code: string; message: string } };
        assert.equal(error.error.code, 'rate_limit_exceeded');
        assert.equal(error.error.type, 'requests');
        assert.match(error.error.message, /^Rate limit reached for key "rpm-limited" on requests per min \(RPM\): Limit 10, Used 10, Requested 1\. Please try again in 6s\.$/);
      }
      await Promise.all([...ok, ...limited.slice(1)].map((r) => r.arrayBuffer()));
      // Six seconds refill one request; a minute the whole bucket.
      clock += 6_000;
      assert.equal((await post(path, RPM_KEY, body)).status, 200);
      assert.equal((await post(path, RPM_KEY, body)).status, 429);
      clock += 60_000;
      const again = await Promise.all(Array.from({ length: 10 }, () => post(path, RPM_KEY, body)));
      assert.deepEqual(
        again.map((r) => r.status),
        Array.from({ length: 10 }, () => 200),
      );
      await Promise.all(again.map((r) => r.arrayBuffer()));
    });
  }

  it('tpm 1000: requests of ~300 tokens, each corrected to its recorded usage; the fourth in the window gets 429 (tokens)', async () => {
    clock += 60_000;
    // Each reports 290 + 10 = 300 tokens; its estimate (its body's bytes / 4 plus max_tokens) is about as much.
    chat.reply = () => ({ kind: 'completion', usage: { prompt: 290, completion: 10 } });
    const body = { model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'x'.repeat(1000) }] };
    for (let i = 0; i < 3; i++) {
      const res = await post('/v1/chat/completions', TPM_KEY, body);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-limit-tokens'), '1000');
      await res.arrayBuffer();
    }
    const fourth = await post('/v1/chat/completions', TPM_KEY, body);
    assert.equal(fourth.status, 429);
    const error = (await fourth.json()) as { error: { type: string; message: string } };
    assert.equal(error.error.type, 'tokens');
    // The bucket holds what the three recorded, 900, not their estimates.
    assert.match(error.error.message, /tokens per min \(TPM\): Limit 1000, Used 900, Requested \d+\./);
    const records = (await gw.usage()).filter((r) => r.keyName === 'tpm-limited' && r.status === 200);
    assert.deepEqual(
      records.map((r) => r.promptTokens + r.completionTokens),
      [300, 300, 300],
    );
    // A request larger than the whole limit is never admitted: 429 that says so, and not to retry.
    const huge = await post('/v1/chat/completions', TPM_KEY, { ...body, max_tokens: 5000 });
    assert.equal(huge.status, 429);
    assert.equal(huge.headers.get('x-should-retry'), 'false');
    assert.equal(huge.headers.get('retry-after'), null);
    assert.match(((await huge.json()) as { error: { message: string } }).error.message, /^Request too large for key "tpm-limited" on tokens per min \(TPM\): Limit 1000, Requested \d+\./);
    chat.reply = (req) => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });
  });

  it('tpm: an answer translated from an upstream that reported no usage keeps its estimate (its zeros are no usage)', async () => {
    clock += 60_000;
    chat.reply = () => ({ kind: 'completion', withoutUsage: true });
    const body = { model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'y'.repeat(1300) }] };
    const first = await post('/v1/messages', TPM_KEY, body);
    assert.equal(first.status, 200, first.status === 200 ? '' : await first.text());
    const estimate = 1000 - Number(first.headers.get('anthropic-ratelimit-tokens-remaining'));
    assert.ok(estimate > 334 && estimate < 500, `admitted against ${estimate} tokens`);
    await first.arrayBuffer();
    // Before, the zeros refunded the estimate and the bucket was full again; now the estimate stands.
    const second = await post('/v1/messages', TPM_KEY, body);
    await second.arrayBuffer();
    assert.equal(second.status, 200);
    const third = await post('/v1/messages', TPM_KEY, body);
    assert.equal(third.status, 429, 'three estimates of ~340 pass 1000');
    await third.arrayBuffer();
    chat.reply = (req) => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });
  });

  it('concurrency 2: two streams in flight, a third refused; slots free as streams end, also when the client leaves', async () => {
    chat.reply = () => ({ kind: 'stream', pieces: Array.from({ length: 30 }, (_, i) => `p${i} `), delayMs: 20 });
    const stream = { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] };
    const first = await post('/v1/chat/completions', SLOT_KEY, stream);
    const leaving = new AbortController();
    const second = await post('/v1/chat/completions', SLOT_KEY, stream, leaving.signal);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(limiter.inFlight('key:config:slot-limited'), 2);
    const third = await post('/v1/chat/completions', SLOT_KEY, stream);
    assert.equal(third.status, 429);
    assert.match(((await third.json()) as { error: { message: string } }).error.message, /on concurrent requests: Limit 2/);
    // One client leaves mid-stream, the other reads to the end: both slots come back.
    leaving.abort();
    await second.body?.cancel().catch(() => undefined);
    await first.text();
    await until('both slots freed', () => (limiter.inFlight('key:config:slot-limited') === 0 ? true : undefined), { timeoutMs: 5000, intervalMs: 10 });
    const later = await post('/v1/chat/completions', SLOT_KEY, stream);
    assert.equal(later.status, 200);
    await later.text();
    chat.reply = (req) => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });
    await until('no slot left', () => (limiter.inFlight('key:config:slot-limited') === 0 ? true : undefined), { timeoutMs: 5000, intervalMs: 10 });
  });

  it('/metrics counts the refusals by scope and limit, and the slots held by group (back to 0)', async () => {
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    const refused = series(text, 'gateway_rate_limited_total');
    // Per route: 15 of the burst and 1 after six seconds; then the tokens tests' three; the slot test's one.
    assert.equal(refused['{scope="key",limit="rpm"}'], 4 * 16);
    assert.equal(refused['{scope="key",limit="tpm"}'], 3);
    assert.equal(refused['{scope="key",limit="concurrency"}'], 1);
    assert.equal(series(text, 'gateway_limited_requests_in_flight')['{group="teams"}'], 0);
    assert.equal(series(text, 'gateway_upstream_errors_total')['{channel="chat",reason="status_429"}'], undefined, 'none of them an upstream\'s');
  });

  it('an account\'s limit counts all its keys together', async () => {
    clock += 60_000;
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    const statuses: number[] = [];
    for (const key of [ACCOUNT_KEY_A, ACCOUNT_KEY_B, ACCOUNT_KEY_A, ACCOUNT_KEY_B]) {
      const res = await post('/v1/chat/completions', key, body);
      statuses.push(res.status);
      if (res.status === 429) assert.match(((await res.json()) as { error: { message: string } }).error.message, /for account "shared"/);
      else await res.arrayBuffer();
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });
});
