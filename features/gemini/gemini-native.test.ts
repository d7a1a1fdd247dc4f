// The Gemini API through a `gemini` channel, over real HTTP on loopback, with Google's official SDK (@google/genai):
// generateContent and generateContentStream reach the upstream as the client's bytes, on the path with the channel's
// name of the model and the channel's key in x-goog-api-key (the caller's key never: not in a header, not in the
// query); the client gets the upstream's bytes; usage records hold the upstream's counts (cache and thought tokens
// included) and the charge is exact at the model's prices. Also: the key in `?key=`, countTokens (free), the model
// list in Google's shape, and errors in Google's shape (401, 402, 400, 404) that change nothing.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { GoogleGenAI } from '@google/genai';
import { formatMoney, parseMoney } from '../../core/money/decimal.js';
import { FakeGemini, GEMINI_USAGE } from '../../test/helpers/fake-gemini.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';
const METERED = 'sk-gemini-metered-0123456789ab';
const BROKE = 'sk-gemini-broke-0123456789abcd';
const UPSTREAM_KEY = 'AIza-upstream-gemini-0123456789';
/** Prices per 1M tokens: input, cache read, output. */
const PRICES = { input: '1.25', cache_read: '0.31', output: '10' };

const fake = new FakeGemini(UPSTREAM_KEY);
let gw: GatewayUnderTest;

before(async () => {
  await fake.start();
  gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "gemini-2.5-pro": { input: ${PRICES.input}, cache_read: ${PRICES.cache_read}, output: ${PRICES.output} }
    "house-gemini": { input: ${PRICES.input}, cache_read: ${PRICES.cache_read}, output: ${PRICES.output} }
    "demo-gemini": { input: ${PRICES.input}, output: ${PRICES.output} }
groups:
  pro: { models: ["gemini-*", "house-gemini", "demo-*"] }
  narrow: { models: ["gemini-2.5-flash"] }
accounts:
  - name: acme
  - name: broke
keys:
  - { name: metered, key: ${METERED}, group: pro, account: acme }
  - { name: broke, key: ${BROKE}, group: pro, account: broke }
  - { name: narrow, key: sk-gemini-narrow-0123456789abc, group: narrow }
channels:
  - { name: google, type: gemini, base_url: "${fake.url}", keys: [${UPSTREAM_KEY}], models: ["gemini-*"], cooldown_ms: 0 }
  - { name: aliased, type: gemini, base_url: "${fake.url}", keys: [${UPSTREAM_KEY}], models: { "house-gemini": "gemini-2.5-pro" } }
  - { name: demo, type: mock, models: ["demo-*"] }
`);
  const credit = await fetch(`${gw.url}/admin/accounts/acme/credit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: '5', idempotency_key: 'start' }),
  });
  assert.equal(credit.status, 201);
});

beforeEach(() => {
  fake.requests.length = 0;
});

after(async () => {
  await gw.stop();
  await fake.close();
});

interface Exchange {
  readonly url: string;
  readonly sent: Buffer;
  readonly received: Buffer;
  readonly requestId: string;
  /** The x-gateway-cost header, or null. */
  readonly cost: string | null;
}
const exchanges: Exchange[] = [];

/** The SDK on the gateway, through a fetch that keeps the exact bytes of each request and answer. */
function sdk(key = METERED): GoogleGenAI {
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const sent = Buffer.from(await request.arrayBuffer());
    const res = await fetch(request.url, { method: request.method, headers: request.headers, ...(sent.length > 0 ? { body: sent } : {}) });
    const received = Buffer.from(await res.clone().arrayBuffer());
    exchanges.push({ url: request.url, sent, received, requestId: res.headers.get('x-request-id') ?? '', cost: res.headers.get('x-gateway-cost') });
    return res;
  };
  return new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url, fetch: recording, retryOptions: { attempts: 1 } } });
}

function last(): Exchange {
  const found = exchanges.at(-1);
  assert.ok(found !== undefined);
  return found;
}

function cost(usage: { prompt: number; cached: number; output: number }): bigint {
  const perMillion =
    BigInt(usage.prompt - usage.cached) * parseMoney(PRICES.input) + BigInt(usage.cached) * parseMoney(PRICES.cache_read) + BigInt(usage.output) * parseMoney(PRICES.output);
  return (perMillion + 999_999n) / 1_000_000n;
}

async function recordOf(requestId: string): Promise<Awaited<ReturnType<GatewayUnderTest['usage']>>[number]> {
  const record = (await gw.usage()).find((r) => r.requestId === requestId);
  assert.ok(record !== undefined, `no usage record for ${requestId}`);
  return record;
}

async function balanceOf(account: string): Promise<bigint> {
  await gw.usage();
  return (await gw.gateway.runtime.deps.store.ledger.getAccount(account))?.balance ?? 0n;
}

/** The upstream got the client's body as sent, with the channel's key and no caller key anywhere. */
function assertForwarded(path: string): void {
  const upstream = fake.requests.at(-1);
  assert.ok(upstream !== undefined, 'the upstream was called');
  assert.equal(upstream.path, path);
  assert.equal(upstream.headers['x-goog-api-key'], UPSTREAM_KEY);
  assert.equal(upstream.headers['authorization'], undefined);
  assert.ok(!upstream.path.includes('key='), 'the caller\'s key stays out of the upstream\'s query');
  assert.equal(upstream.raw.toString(), last().sent.toString(), 'the upstream received other bytes than the client sent');
}

const EXPECTED = { prompt: 1200, cached: 1000, output: 170 };

describe('the Gemini API through a gemini channel (native)', () => {
  it('generateContent: bytes both ways, usage with cache and thought tokens, exact charge', async () => {
    const before = await balanceOf('acme');
    const answer = await sdk().models.generateContent({ model: 'gemini-2.5-pro', contents: 'Say hello.' });
    assert.equal(answer.text, 'Hello from Gemini.');
    assertForwarded('/v1beta/models/gemini-2.5-pro:generateContent');
    assert.ok(last().received.equals(fake.lastAnswer), 'the client received other bytes than the upstream sent');
    const record = await recordOf(last().requestId);
    assert.deepEqual(
      [record.route, record.model, record.channel, record.status, record.promptTokens, record.cachedTokens, record.completionTokens, record.reasoningTokens, record.usageEstimated ?? false],
      ['/v1beta/models/{model}:generateContent', 'gemini-2.5-pro', 'google', 200, 1200, 1000, 170, 150, false],
    );
    assert.equal(record.cost, cost(EXPECTED));
    assert.equal(await balanceOf('acme'), before - cost(EXPECTED), 'the balance drops by exactly the charge');
    assert.equal(last().cost, formatMoney(cost(EXPECTED)), 'x-gateway-cost is the charge');
  });

  it('generateContentStream: SSE events relayed as sent, usage from the last event (never summed)', async () => {
    fake.reply = () => ({ kind: 'answer', parts: [{ text: 'One, ' }, { text: 'two, ' }, { text: 'three.' }], usage: GEMINI_USAGE });
    try {
      const stream = await sdk().models.generateContentStream({ model: 'gemini-2.5-pro', contents: 'Count to three.' });
      let text = '';
      for await (const chunk of stream) text += chunk.text ?? '';
      assert.equal(text, 'One, two, three.');
    } finally {
      fake.reply = () => ({ kind: 'answer', parts: [{ text: 'Hello from Gemini.' }], usage: GEMINI_USAGE });
    }
    assertForwarded('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
    // The events as the upstream sent them, but for the price beside the last one's usage (usageMetadata.cost), an
    // event the gateway writes anew (ended by a blank line of its own, \n\n, which Google's parser takes as well).
    const told = `,"cost":${formatMoney(cost(EXPECTED))}}`;
    const received = last().received.toString();
    const upstream = fake.lastAnswer.toString().replace(/\r\n\r\n$/, '\n\n');
    assert.equal(received.replace(told, '}'), upstream, 'the events reached the client as the upstream sent them');
    const events = received.split(/\r?\n\r?\n/).filter((event) => event !== '').map((event) => JSON.parse(event.slice('data: '.length)) as { usageMetadata?: { cost?: number } });
    assert.equal(events.at(-1)?.usageMetadata?.cost, Number(formatMoney(cost(EXPECTED))), 'the last event tells the charge');
    const record = await recordOf(last().requestId);
    assert.deepEqual([record.promptTokens, record.cachedTokens, record.completionTokens, record.usageEstimated ?? false], [1200, 1000, 170, false]);
    assert.equal(record.cost, cost(EXPECTED));
  });

  it('a model alias: the path names the channel\'s model; the record names both', async () => {
    await sdk().models.generateContent({ model: 'house-gemini', contents: 'Hi.' });
    assertForwarded('/v1beta/models/gemini-2.5-pro:generateContent');
    const record = await recordOf(last().requestId);
    assert.deepEqual([record.model, record.upstreamModel, record.channel], ['house-gemini', 'gemini-2.5-pro', 'aliased']);
  });

  it('the key in ?key= (Google\'s docs\' curl): served, and the key goes neither upstream nor into the record', async () => {
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi.' }] }] });
    const res = await fetch(`${gw.url}/v1beta/models/gemini-2.5-pro:generateContent?key=${METERED}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 200);
    const upstream = fake.requests.at(-1);
    assert.equal(upstream?.path, '/v1beta/models/gemini-2.5-pro:generateContent');
    // Google's system parameters and field mask, which could strip the usage billed from, stay behind too.
    const streamed = await fetch(`${gw.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent?key=${METERED}&alt=sse&fields=candidates&$alt=json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-fieldmask': 'candidates', 'x-goog-user-project': 'other' },
      body,
    });
    assert.equal(streamed.status, 200);
    await streamed.arrayBuffer();
    assert.equal(fake.requests.at(-1)?.path, '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
    assert.deepEqual([fake.requests.at(-1)?.headers['x-goog-fieldmask'], fake.requests.at(-1)?.headers['x-goog-user-project']], [undefined, undefined]);
    assert.equal((await recordOf(streamed.headers.get('x-request-id') ?? '')).usageEstimated ?? false, false, 'the usage is the upstream\'s');
    const record = await recordOf(res.headers.get('x-request-id') ?? '');
    assert.ok(!JSON.stringify(record, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes(METERED), 'the record holds no key');
    const refused = await fetch(`${gw.url}/v1beta/models/gemini-2.5-pro:generateContent?key=sk-wrong-0123456789abcdefgh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(refused.status, 401);
    const text = await refused.text();
    assert.ok(!text.includes('sk-wrong'), 'the refusal does not echo the key');
    assert.equal((JSON.parse(text) as { error: { status: string } }).error.status, 'UNAUTHENTICATED');
  });

  it('streamGenerateContent without alt=sse: the upstream\'s JSON array, relayed whole, usage from its last element', async () => {
    const res = await fetch(`${gw.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': METERED, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'Hi.' }] }] }),
    });
    assert.equal(res.status, 200);
    const received = Buffer.from(await res.arrayBuffer());
    assert.ok(received.equals(fake.lastAnswer));
    assert.ok(Array.isArray(JSON.parse(received.toString())));
    const record = await recordOf(res.headers.get('x-request-id') ?? '');
    assert.deepEqual([record.promptTokens, record.completionTokens], [1200, 170]);
  });

  it('countTokens is served natively and free', async () => {
    const counted = await sdk().models.countTokens({ model: 'gemini-2.5-pro', contents: 'How many?' });
    assert.equal(counted.totalTokens, 42);
    assertForwarded('/v1beta/models/gemini-2.5-pro:countTokens');
    assert.equal((await recordOf(last().requestId)).cost ?? 0n, 0n, 'no charge');
  });

  it('the model list in Google\'s shape, paged, only what the key may call', async () => {
    const pager = await sdk().models.list({ config: { pageSize: 2 } });
    const names: string[] = [];
    for await (const model of pager) names.push(model.name ?? '');
    assert.ok(names.includes('models/gemini-2.5-pro') && names.includes('models/house-gemini'), names.join());
    // Only the upstream's own list names this one: the channel's glob was expanded from its GET /v1beta/models.
    assert.ok(names.includes('models/gemini-3-pro-preview'), names.join());
    assert.ok(names.every((name) => name.startsWith('models/')));
    const one = await sdk().models.get({ model: 'gemini-2.5-pro' });
    assert.equal(one.name, 'models/gemini-2.5-pro');
    assert.ok(one.supportedActions?.includes('generateContent') ?? false, JSON.stringify(one));
    const narrow = await fetch(`${gw.url}/v1beta/models/gemini-2.5-pro`, { headers: { 'x-goog-api-key': 'sk-gemini-narrow-0123456789abc' } });
    assert.equal(narrow.status, 404);
    assert.equal(((await narrow.json()) as { error: { status: string } }).error.status, 'NOT_FOUND');
  });

  it('refusals in Google\'s shape that change nothing: no key, a bad body, no money, a model not allowed', async () => {
    const records = (await gw.usage()).length;
    const balance = await balanceOf('acme');
    const post = (key: string | null, body: string, model = 'gemini-2.5-pro'): Promise<Response> =>
      fetch(`${gw.url}/v1beta/models/${model}:generateContent`, { method: 'POST', headers: Object.assign({ 'content-type': 'application/json' }, key === null ? {} : { 'x-goog-api-key': key }), body });
    const good = JSON.stringify({ contents: [{ parts: [{ text: 'Hi.' }] }] });
    const cases: [Response, number, string][] = [
      [await post(null, good), 401, 'UNAUTHENTICATED'],
      [await post(METERED, '{"contents":'), 400, 'INVALID_ARGUMENT'],
      [await post(METERED, '{}'), 400, 'INVALID_ARGUMENT'],
      [await post(METERED, JSON.stringify({ contents: [], generationConfig: { candidateCount: 3 } })), 400, 'INVALID_ARGUMENT'],
      [await post(BROKE, good), 402, 'FAILED_PRECONDITION'],
      [await post('sk-gemini-narrow-0123456789abc', good), 403, 'PERMISSION_DENIED'],
    ];
    for (const [res, status, word] of cases) {
      const body = (await res.json()) as { error: { code: number; status: string; message: string } };
      assert.equal(res.status, status, body.error.message);
      assert.deepEqual([body.error.code, body.error.status], [status, word]);
    }
    assert.equal(fake.requests.length, 0, 'no refusal reached the upstream');
    assert.equal(await balanceOf('acme'), balance);
    assert.ok((await gw.usage()).length >= records);
  });

  it('an upstream 429 tells a Gemini client the wait Google put in its body only: RetryInfo and retry-after', async () => {
    const answer = fake.reply;
    fake.reply = () => ({
      kind: 'status',
      status: 429,
      body: { error: { code: 429, message: 'Resource has been exhausted.', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12.5s' }] } },
    });
    try {
      const res = await fetch(`${gw.url}/v1beta/models/gemini-2.5-pro:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': METERED },
        body: JSON.stringify({ contents: [{ parts: [{ text: 'Hi.' }] }] }),
      });
      const body = (await res.json()) as { error: { status: string; details?: unknown } };
      assert.equal(res.status, 429);
      assert.equal(res.headers.get('retry-after'), '13');
      assert.equal(body.error.status, 'RESOURCE_EXHAUSTED');
      assert.deepEqual(body.error.details, [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '13s' }], 'what Gemini CLI waits for');
    } finally {
      fake.reply = answer;
    }
  });
});

describe('the Gemini API on the mock channel', () => {
  it('answers generateContent, the SSE stream, the JSON-array stream and countTokens offline', async () => {
    const ai = sdk();
    const answer = await ai.models.generateContent({ model: 'demo-gemini', contents: 'ping' });
    assert.match(answer.text ?? '', /You said: "ping"/);
    const stream = await ai.models.generateContentStream({ model: 'demo-gemini', contents: 'pong' });
    let text = '';
    let finish: string | undefined;
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      finish = chunk.candidates?.[0]?.finishReason ?? finish;
    }
    assert.match(text, /You said: "pong"/);
    assert.equal(finish, 'STOP');
    const record = await recordOf(last().requestId);
    assert.ok(record.promptTokens > 0 && record.completionTokens > 0 && (record.usageEstimated ?? false) === false);
    const counted = await ai.models.countTokens({ model: 'demo-gemini', contents: 'count me' });
    assert.ok((counted.totalTokens ?? 0) > 0);
  });
});
