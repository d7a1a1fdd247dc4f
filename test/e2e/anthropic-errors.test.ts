// Every error an Anthropic client can get from /v1/messages and /v1/models, over real HTTP against the fake
// Anthropic upstream: the exact Anthropic error shape {"type":"error","error":{"type","message"}}, the right
// status and error.type, no upstream call for requests refused before routing, and in-band `event: error`
// frames once a stream has begun. Also /v1/models in both shapes, with Anthropic's cursor paging, and HEAD /.

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, afterEach, before, test } from 'node:test';
import { parseOpenAIError } from '../helpers/chat-requests.js';
import { DEFAULT_ANTHROPIC_MODELS, FakeAnthropic, anthropicChannel, defaultAnthropicReply } from '../helpers/fake-anthropic.js';
import { DEFAULT_OPENAI_MODELS, FakeOpenAI } from '../helpers/fake-openai.js';
import { LIMITED_KEY, TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { splitSse } from '../helpers/sse-text.js';

const VERSION = '2023-06-01';
const MESSAGES = '/v1/messages';
const UNKNOWN_KEY = 'sk-nobody-0123456789abcdefghij';
/** The headers the Anthropic SDK sends with an API key. */
const SDK_HEADERS: Readonly<Record<string, string>> = { 'x-api-key': TEST_KEY, 'anthropic-version': VERSION };

/** Concrete names on anthropic channels (listed by /v1/models), beside the `claude-*` glob (listed as discovered). */
const ANTHROPIC_CATALOG = ['claude-cat-a', 'claude-cat-b', 'claude-cat-c'] as const;
/** An alias on an anthropic channel that the "limited" group (demo-* only) may use. */
const ANTHROPIC_DEMO = 'demo-claude';
/** Concrete names on an openai channel: listed for Anthropic clients too, who reach them through translation. */
const OPENAI_CATALOG = ['gpt-cat-1', 'demo-gpt'] as const;

let fake: FakeAnthropic;
let openai: FakeOpenAI;
let gw: GatewayUnderTest;

/** A channel block with an explicit model list (a JSON array of names, or a JSON object of aliases). */
function channelWithModels(name: string, type: 'anthropic' | 'openai', url: string, models: readonly string[] | Record<string, string>): string {
  return `  - name: ${name}
    type: ${type}
    base_url: ${url}
    keys: ["sk-upstream-${name}-0123456789"]
    models: ${JSON.stringify(models)}
    cooldown_ms: 0
`;
}

before(async () => {
  fake = await new FakeAnthropic().start();
  openai = await new FakeOpenAI('openai-upstream').start();
  gw = await startGatewayUnderTest(
    configWith(
      anthropicChannel('anth', fake.url) +
        channelWithModels('anth-catalog', 'anthropic', fake.url, ANTHROPIC_CATALOG) +
        channelWithModels('anth-demo', 'anthropic', fake.url, { [ANTHROPIC_DEMO]: 'claude-cat-a' }) +
        channel('oai', openai.url) +
        channelWithModels('oai-catalog', 'openai', openai.url, OPENAI_CATALOG),
    ),
  );
  await gw.modelsDiscovered();
});

after(async () => {
  await gw.stop();
  await fake.close();
  await openai.close();
});

afterEach(() => {
  fake.reply = defaultAnthropicReply;
});

// ---- helpers ----

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messagesBody(model = 'claude-test', extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], ...extra });
}

function post(path: string, body: string, headers: Readonly<Record<string, string>> = SDK_HEADERS, base = gw.url): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

function get(path: string, headers: Readonly<Record<string, string>>): Promise<Response> {
  return fetch(`${gw.url}${path}`, { headers });
}

interface AnthropicError {
  readonly type: string;
  readonly message: string;
}

/** Checks a parsed body is exactly {"type":"error","error":{"type","message"}} with a non-empty message. */
function checkErrorBody(json: unknown, context: string): AnthropicError {
  if (!isRecord(json)) assert.fail(`not an object: ${context}`);
  assert.deepEqual(Object.keys(json).sort(), ['error', 'type'], context);
  assert.equal(json['type'], 'error', context);
  const error = json['error'];
  if (!isRecord(error)) assert.fail(`error is not an object: ${context}`);
  assert.deepEqual(Object.keys(error).sort(), ['message', 'type'], context);
  const { type, message } = error;
  if (typeof type !== 'string') assert.fail(`error.type is not a string: ${context}`);
  if (typeof message !== 'string') assert.fail(`error.message is not a string: ${context}`);
  assert.ok(message.length > 0, `error.message is empty: ${context}`);
  return { type, message };
}

/** Reads the body and checks status, JSON content type and the exact Anthropic error shape. */
async function anthropicError(res: Response, status: number, type: string): Promise<AnthropicError> {
  const text = await res.text();
  assert.equal(res.status, status, `expected HTTP ${status}, got ${res.status}: ${text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const error = checkErrorBody(JSON.parse(text), text);
  assert.equal(error.type, type, text);
  return error;
}

/** Runs `fn` and checks that neither upstream received a request. */
async function untouched(fn: () => Promise<void>): Promise<void> {
  const before = { anthropic: fake.requests.length, openai: openai.requests.length };
  await fn();
  assert.equal(fake.requests.length, before.anthropic, 'the Anthropic upstream received no request');
  assert.equal(openai.requests.length, before.openai, 'the OpenAI upstream received no request');
}

/** Runs `fn` and checks that the Anthropic upstream received exactly `count` requests meanwhile. */
async function upstreamCalls(count: number, fn: () => Promise<void>): Promise<void> {
  const before = fake.requests.length;
  await fn();
  assert.equal(fake.requests.length - before, count, `the upstream received ${count} request(s)`);
}

/** A loopback port nothing listens on: bound by us, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!isRecord(address) || typeof address['port'] !== 'number') assert.fail('no port');
  const port = address['port'];
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts a second gateway whose only channel is `block`, runs `fn` against it, and stops it. */
async function withGateway(block: string, fn: (url: string) => Promise<void>): Promise<void> {
  const other = await startGatewayUnderTest(configWith(block));
  try {
    await fn(other.url);
  } finally {
    await other.stop();
  }
}

// ---- 1. 401 authentication_error, and the key headers that are accepted ----

test('401 authentication_error on /v1/messages without any key', async () => {
  await untouched(async () => {
    const res = await post(MESSAGES, messagesBody(), { 'anthropic-version': VERSION });
    const error = await anthropicError(res, 401, 'authentication_error');
    assert.match(error.message, /API key/);
  });
});

test('401 authentication_error on /v1/messages for an unknown key in x-api-key', async () => {
  await untouched(async () => {
    const res = await post(MESSAGES, messagesBody(), { 'x-api-key': UNKNOWN_KEY, 'anthropic-version': VERSION });
    assert.equal(res.headers.get('x-should-retry'), 'false');
    await anthropicError(res, 401, 'authentication_error');
  });
});

test('401 authentication_error when Bearer and x-api-key name different keys, even if one is valid', async () => {
  await untouched(async () => {
    for (const headers of [
      { authorization: `Bearer ${TEST_KEY}`, 'x-api-key': UNKNOWN_KEY },
      { authorization: `Bearer ${UNKNOWN_KEY}`, 'x-api-key': TEST_KEY },
      { authorization: `Bearer ${TEST_KEY}`, 'x-api-key': LIMITED_KEY },
    ]) {
      const error = await anthropicError(await post(MESSAGES, messagesBody(), { ...headers, 'anthropic-version': VERSION }), 401, 'authentication_error');
      assert.match(error.message, /different API keys/);
    }
  });
});

test('a valid key as x-api-key only, as Bearer only, and as both is accepted; the upstream gets the channel key', async () => {
  const cases: readonly Record<string, string>[] = [
    { 'x-api-key': TEST_KEY },
    { authorization: `Bearer ${TEST_KEY}` },
    { authorization: `Bearer ${TEST_KEY}`, 'x-api-key': TEST_KEY },
  ];
  for (const headers of cases) {
    const label = Object.keys(headers).join(' + ');
    const before = fake.requests.length;
    const res = await post(MESSAGES, messagesBody(), { ...headers, 'anthropic-version': VERSION });
    const text = await res.text();
    assert.equal(res.status, 200, `${label}: ${text}`);
    const json = JSON.parse(text) as { type: string; content: { type: string; text?: string }[] };
    assert.equal(json.type, 'message', label);
    assert.equal(json.content[0]?.text, 'reply from fake-anthropic', label);
    assert.equal(fake.requests.length, before + 1, label);
    const upstream = fake.requests[before];
    assert.equal(upstream?.path, MESSAGES, label);
    assert.equal(upstream?.headers['x-api-key'], 'sk-ant-upstream-anth', `${label}: the upstream sees the channel key`);
    assert.equal(upstream?.headers['authorization'], undefined, `${label}: the caller's Bearer is not forwarded`);
  }
});

// ---- 2. 403 permission_error ----

test('403 permission_error when the key group may not call the model', async () => {
  await untouched(async () => {
    const res = await post(MESSAGES, messagesBody('claude-test'), { 'x-api-key': LIMITED_KEY, 'anthropic-version': VERSION });
    assert.equal(res.headers.get('x-should-retry'), 'false');
    const error = await anthropicError(res, 403, 'permission_error');
    assert.match(error.message, /claude-test/);
    assert.match(error.message, /limited/);
  });
});

// ---- 3. 404 not_found_error ----

test('404 not_found_error for a model no channel serves', async () => {
  await untouched(async () => {
    const error = await anthropicError(await post(MESSAGES, messagesBody('mistral-large-nowhere')), 404, 'not_found_error');
    assert.match(error.message, /mistral-large-nowhere/);
  });
});

test('404 not_found_error for count_tokens of a model only an openai channel serves: count_tokens is not translated', async () => {
  await untouched(async () => {
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const error = await anthropicError(await post(`${MESSAGES}/count_tokens`, body), 404, 'not_found_error');
    assert.match(error.message, /gpt-4o/);
    assert.match(error.message, /not available on \/v1\/messages\/count_tokens/);
    assert.match(error.message, /openai-chat/);
  });
});

test('404 for POST /v1/v1/messages (doubled /v1) in the Anthropic shape, with the base-URL hint', async () => {
  await untouched(async () => {
    // Even with a Bearer key only and no anthropic-version: the path names messages.
    const res = await post('/v1/v1/messages', messagesBody(), { authorization: `Bearer ${TEST_KEY}` });
    const error = await anthropicError(res, 404, 'not_found_error');
    assert.match(error.message, /\/v1\/v1\/messages/);
    assert.match(error.message, /\/v1 twice/);
    assert.match(error.message, /Remove the trailing \/v1/);
  });
});

test('404 for an unknown path with an anthropic-version header is in the Anthropic shape', async () => {
  await untouched(async () => {
    const res = await post('/v1/nothing-here', messagesBody(), { authorization: `Bearer ${TEST_KEY}`, 'anthropic-version': VERSION });
    const error = await anthropicError(res, 404, 'not_found_error');
    assert.match(error.message, /Unknown request URL: POST \/v1\/nothing-here/);
    const unknownGet = await get('/v1/nothing-here', { 'anthropic-version': VERSION });
    await anthropicError(unknownGet, 404, 'not_found_error');
    // The same path without any Anthropic marker is answered in the OpenAI shape.
    const plain = await post('/v1/nothing-here', messagesBody(), { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(plain.status, 404);
    assert.equal(parseOpenAIError(await plain.text()).code, 'unknown_url');
  });
});

test('GET /v1/messages is refused in the Anthropic shape (405 invalid_request_error)', async () => {
  await untouched(async () => {
    const error = await anthropicError(await get(MESSAGES, SDK_HEADERS), 405, 'invalid_request_error');
    assert.match(error.message, /accepts POST only/);
  });
});

// ---- 4. 413 request_too_large ----

test('413 request_too_large for a body over body_limit (65536 bytes) on /v1/messages', async () => {
  const body = JSON.stringify({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'x'.repeat(70_000) }] });
  assert.ok(Buffer.byteLength(body) > 65_536);
  await untouched(async () => {
    await anthropicError(await post(MESSAGES, body), 413, 'request_too_large');
    // Claude Code calls /v1/messages?beta=true: the query must not change the error shape.
    await anthropicError(await post(`${MESSAGES}?beta=true`, body), 413, 'request_too_large');
  });
});

// ---- 5. 400 invalid_request_error ----

test('400 invalid_request_error for a body that is not JSON', async () => {
  await untouched(async () => {
    const error = await anthropicError(await post(MESSAGES, '{"model":"claude-test","max_tokens":'), 400, 'invalid_request_error');
    assert.match(error.message, /JSON/);
  });
});

test('400 invalid_request_error "max_tokens: Field required" when max_tokens is missing', async () => {
  await untouched(async () => {
    const body = JSON.stringify({ model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] });
    const error = await anthropicError(await post(MESSAGES, body), 400, 'invalid_request_error');
    assert.equal(error.message, 'max_tokens: Field required');
  });
});

test('400 invalid_request_error "messages: Field required" when messages is missing', async () => {
  await untouched(async () => {
    const body = JSON.stringify({ model: 'claude-test', max_tokens: 64 });
    const error = await anthropicError(await post(MESSAGES, body), 400, 'invalid_request_error');
    assert.equal(error.message, 'messages: Field required');
  });
});

test('400 invalid_request_error for an empty body and for a JSON value that is not an object', async () => {
  await untouched(async () => {
    await anthropicError(await post(MESSAGES, ''), 400, 'invalid_request_error');
    const error = await anthropicError(await post(MESSAGES, '[1,2]'), 400, 'invalid_request_error');
    assert.match(error.message, /JSON object/);
  });
});

// ---- 6. 429 rate_limit_error ----

test('429 rate_limit_error when the only channel answers 429; retry-after is forwarded when sent', async () => {
  fake.reply = () => ({ kind: 'status', status: 429, headers: { 'retry-after': '7' } });
  await upstreamCalls(1, async () => {
    const res = await post(MESSAGES, messagesBody());
    assert.equal(res.headers.get('retry-after'), '7');
    assert.equal(res.headers.get('x-should-retry'), null, 'a 429 may be retried');
    await anthropicError(res, 429, 'rate_limit_error');
  });

  fake.reply = () => ({ kind: 'status', status: 429 });
  await upstreamCalls(1, async () => {
    const res = await post(MESSAGES, messagesBody('claude-test', { stream: true }));
    assert.equal(res.headers.get('retry-after'), null, 'no retry-after when the upstream sent none');
    await anthropicError(res, 429, 'rate_limit_error');
  });
});

// ---- 7. 5xx and upstream errors ----

test('upstream 500 becomes 502 api_error without the upstream body or keys', async () => {
  fake.reply = () => ({ kind: 'status', status: 500 });
  await upstreamCalls(1, async () => {
    const error = await anthropicError(await post(MESSAGES, messagesBody()), 502, 'api_error');
    assert.doesNotMatch(error.message, /fake-anthropic says/);
    assert.doesNotMatch(error.message, /sk-ant-upstream/);
  });
});

test('upstream 529 (overloaded) is answered 503 overloaded_error, which clients retry', async () => {
  fake.reply = () => ({ kind: 'status', status: 529 });
  await upstreamCalls(1, async () => {
    const res = await post(MESSAGES, messagesBody());
    const text = await res.text();
    const error = checkErrorBody(JSON.parse(text), text);
    assert.ok(['api_error', 'overloaded_error'].includes(error.type), text);
    assert.ok(res.status >= 500, `a retryable 5xx: ${res.status}`);
    assert.equal(res.status, 503, text);
    assert.equal(error.type, 'overloaded_error', text);
    assert.match(error.message, /HTTP 529/);
  });
});

test('an unreachable upstream (closed port) gives 502 api_error', async () => {
  const port = await closedPort();
  await withGateway(anthropicChannel('dead', `http://127.0.0.1:${port}`), async (url) => {
    await untouched(async () => {
      const error = await anthropicError(await post(MESSAGES, messagesBody(), SDK_HEADERS, url), 502, 'api_error');
      assert.doesNotMatch(error.message, /sk-ant-upstream/);
    });
  });
});

test('an upstream that never answers within the channel timeout_ms gives 504 timeout_error', async () => {
  fake.reply = () => ({ kind: 'hang' });
  await withGateway(anthropicChannel('slow', fake.url, '    timeout_ms: 300\n'), async (url) => {
    await upstreamCalls(1, async () => {
      const started = Date.now();
      const res = await post(MESSAGES, messagesBody(), SDK_HEADERS, url);
      await anthropicError(res, 504, 'timeout_error');
      assert.ok(Date.now() - started < 10_000, 'answered after timeout_ms, not the 60 s default');
    });
  });
});

test('an upstream 4xx with an Anthropic error body passes through unchanged (status and body)', async () => {
  const cases = [
    { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' } } },
    { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'model: claude-test' } } },
  ];
  for (const { status, body } of cases) {
    fake.reply = () => ({ kind: 'status', status, body });
    for (const stream of [false, true]) {
      await upstreamCalls(1, async () => {
        const res = await post(MESSAGES, messagesBody('claude-test', { stream }));
        const text = await res.text();
        assert.equal(res.status, status, `stream=${stream}: ${text}`);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(text, JSON.stringify(body), `stream=${stream}: the upstream's bytes`);
        checkErrorBody(JSON.parse(text), text);
      });
    }
  }
});

// ---- 8. Mid-stream errors ----

test('a stream whose upstream breaks after 3 frames: 200, those frames, then an `event: error` api_error frame, no [DONE]', async () => {
  fake.reply = () => ({ kind: 'stream', breakAfter: 3 });
  await upstreamCalls(1, async () => {
    const res = await post(MESSAGES, messagesBody('claude-test', { stream: true }));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const text = await res.text();
    const sent = fake.lastStreamBytes.toString('utf8');
    assert.ok(text.startsWith(sent), 'the frames before the break arrive unchanged');
    const frames = splitSse(text);
    assert.equal(frames.length, 4, text);
    assert.deepEqual(
      frames.slice(0, 3).map((f) => f.event),
      ['message_start', 'content_block_start', 'ping'],
    );
    const last = frames[frames.length - 1];
    assert.equal(last?.event, 'error', text);
    assert.equal(text.slice(sent.length), `event: error\ndata: ${last?.data ?? ''}\n\n`, 'one whole error frame after the upstream bytes');
    const error = checkErrorBody(JSON.parse(last?.data ?? 'null'), text);
    assert.equal(error.type, 'api_error');
    assert.ok(!text.includes('[DONE]'), 'no [DONE] in an Anthropic stream');
    assert.ok(!text.includes('message_stop'), 'the stream did not complete');
  });
});

test('an `event: error` frame sent by the upstream passes through unchanged, and the stream ends', async () => {
  fake.reply = () => ({ kind: 'stream', errorAfter: 4 });
  await upstreamCalls(1, async () => {
    const res = await post(MESSAGES, messagesBody('claude-test', { stream: true }));
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.equal(text, fake.lastStreamBytes.toString('utf8'), 'the client got exactly the upstream bytes');
    const frames = splitSse(text);
    assert.equal(frames.length, 5, text);
    const last = frames[frames.length - 1];
    assert.equal(last?.event, 'error');
    assert.deepEqual(JSON.parse(last?.data ?? 'null'), { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    assert.ok(!text.includes('[DONE]'));
  });
});

// ---- 9. GET /v1/models ----

/**
 * Every name, whatever API its channel speaks: each is callable from any API through translation; the globs
 * (anth: claude-*, oai: gpt-*) as the fake upstreams list them.
 */
const ANTHROPIC_LIST = [
  ...ANTHROPIC_CATALOG,
  ANTHROPIC_DEMO,
  ...OPENAI_CATALOG,
  ...DEFAULT_ANTHROPIC_MODELS,
  ...DEFAULT_OPENAI_MODELS.filter((id) => id.startsWith('gpt-')),
].sort();
/** What the "limited" group (demo-* only) sees. */
const LIMITED_LIST = [ANTHROPIC_DEMO, 'demo-gpt'].sort();
const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

interface AnthropicPage {
  readonly ids: string[];
  readonly hasMore: boolean;
  readonly firstId: string | null;
  readonly lastId: string | null;
}

/** Checks one Anthropic model object: exactly {type:"model", id, display_name, created_at}. */
function checkAnthropicModel(item: unknown): string {
  if (!isRecord(item)) assert.fail('model is not an object');
  assert.deepEqual(Object.keys(item).sort(), ['created_at', 'display_name', 'id', 'type']);
  assert.equal(item['type'], 'model');
  const id = item['id'];
  if (typeof id !== 'string') assert.fail('id is not a string');
  assert.equal(typeof item['display_name'], 'string');
  assert.match(String(item['created_at']), CREATED_AT);
  return id;
}

/** Checks one OpenAI model object: {id, object:"model", created, owned_by}. */
function checkOpenAIModel(item: unknown): string {
  if (!isRecord(item)) assert.fail('model is not an object');
  assert.equal(item['object'], 'model');
  assert.equal(typeof item['created'], 'number');
  assert.equal(typeof item['owned_by'], 'string');
  const id = item['id'];
  if (typeof id !== 'string') assert.fail('id is not a string');
  return id;
}

async function anthropicPage(query: string, headers: Readonly<Record<string, string>> = SDK_HEADERS): Promise<AnthropicPage> {
  const res = await get(`/v1/models${query}`, headers);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const json = JSON.parse(text) as unknown;
  if (!isRecord(json)) assert.fail(text);
  assert.deepEqual(Object.keys(json).sort(), ['data', 'first_id', 'has_more', 'last_id'], text);
  const data = json['data'];
  if (!Array.isArray(data)) assert.fail(text);
  const hasMore = json['has_more'];
  if (typeof hasMore !== 'boolean') assert.fail(text);
  const firstId = json['first_id'];
  const lastId = json['last_id'];
  assert.ok(firstId === null || typeof firstId === 'string', text);
  assert.ok(lastId === null || typeof lastId === 'string', text);
  const ids = data.map(checkAnthropicModel);
  assert.equal(firstId, ids[0] ?? null, text);
  assert.equal(lastId, ids[ids.length - 1] ?? null, text);
  return { ids, hasMore, firstId, lastId };
}

async function openAIList(headers: Readonly<Record<string, string>>): Promise<string[]> {
  const res = await get('/v1/models', headers);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const json = JSON.parse(text) as unknown;
  if (!isRecord(json)) assert.fail(text);
  assert.deepEqual(Object.keys(json).sort(), ['data', 'object'], text);
  assert.equal(json['object'], 'list');
  const data = json['data'];
  if (!Array.isArray(data)) assert.fail(text);
  return data.map(checkOpenAIModel);
}

test('GET /v1/models with anthropic-version (Bearer key) answers the Anthropic shape: every concrete name, those of openai channels included', async () => {
  const page = await anthropicPage('', { authorization: `Bearer ${TEST_KEY}`, 'anthropic-version': VERSION });
  assert.deepEqual(page.ids, ANTHROPIC_LIST);
  assert.equal(page.hasMore, false);
  assert.ok(!page.ids.some((id) => id.includes('*')), 'no globs');
  assert.ok(page.ids.includes('gpt-cat-1'), 'models of openai channels are callable on /v1/messages through translation');
});

test('GET /v1/models with only x-api-key answers the Anthropic shape too, filtered by the key group', async () => {
  const page = await anthropicPage('', { 'x-api-key': TEST_KEY });
  assert.deepEqual(page.ids, ANTHROPIC_LIST);
  const limited = await anthropicPage('', { 'x-api-key': LIMITED_KEY });
  assert.deepEqual(limited.ids, LIMITED_LIST);
  assert.equal(limited.hasMore, false);
});

test('GET /v1/models paging: limit=1 with after_id walks forward, before_id walks back, has_more is right', async () => {
  const forward: string[] = [];
  let page = await anthropicPage('?limit=1');
  for (;;) {
    assert.equal(page.ids.length, 1);
    forward.push(...page.ids);
    assert.equal(page.hasMore, forward.length < ANTHROPIC_LIST.length, `after ${forward.join(',')}`);
    if (!page.hasMore) break;
    page = await anthropicPage(`?limit=1&after_id=${encodeURIComponent(page.lastId ?? '')}`);
  }
  assert.deepEqual(forward, ANTHROPIC_LIST);

  const backward: string[] = [];
  const lastName = ANTHROPIC_LIST[ANTHROPIC_LIST.length - 1] ?? '';
  page = await anthropicPage(`?limit=1&before_id=${encodeURIComponent(lastName)}`);
  for (;;) {
    assert.equal(page.ids.length, 1);
    backward.unshift(...page.ids);
    assert.equal(page.hasMore, backward.length < ANTHROPIC_LIST.length - 1, `before ${backward.join(',')}`);
    if (!page.hasMore) break;
    page = await anthropicPage(`?limit=1&before_id=${encodeURIComponent(page.firstId ?? '')}`);
  }
  assert.deepEqual(backward, ANTHROPIC_LIST.slice(0, -1));

  const two = await anthropicPage('?limit=2');
  assert.deepEqual(two.ids, ANTHROPIC_LIST.slice(0, 2));
  assert.equal(two.hasMore, true);
  const rest = await anthropicPage(`?limit=2&after_id=${encodeURIComponent(two.lastId ?? '')}`);
  assert.deepEqual(rest.ids, ANTHROPIC_LIST.slice(2, 4));
  assert.equal(rest.hasMore, ANTHROPIC_LIST.length > 4);
  const all = await anthropicPage(`?limit=${ANTHROPIC_LIST.length}`);
  assert.equal(all.hasMore, false, 'a page that holds everything has no more');
  const none = await anthropicPage(`?after_id=${encodeURIComponent(lastName)}`);
  assert.deepEqual(none, { ids: [], hasMore: false, firstId: null, lastId: null });
});

test('GET /v1/models with limit=0 (or out of range) is a 400 invalid_request_error in the Anthropic shape', async () => {
  for (const limit of ['0', '1001', 'abc', '1.5']) {
    const error = await anthropicError(await get(`/v1/models?limit=${limit}`, SDK_HEADERS), 400, 'invalid_request_error');
    assert.match(error.message, /limit/, `limit=${limit}`);
  }
});

test('GET /v1/models with a Bearer key only answers the OpenAI list shape, the same models', async () => {
  const ids = await openAIList({ authorization: `Bearer ${TEST_KEY}` });
  assert.deepEqual(ids, ANTHROPIC_LIST);
  const limited = await openAIList({ authorization: `Bearer ${LIMITED_KEY}` });
  assert.deepEqual(limited, LIMITED_LIST);
});

test('GET /v1/models/{id} in both shapes, and 404 for an unknown id in each', async () => {
  const anthropic = await get('/v1/models/claude-cat-b', SDK_HEADERS);
  assert.equal(anthropic.status, 200);
  const model = (await anthropic.json()) as unknown;
  assert.equal(checkAnthropicModel(model), 'claude-cat-b');

  const oa = await get('/v1/models/gpt-cat-1', { authorization: `Bearer ${TEST_KEY}` });
  assert.equal(oa.status, 200);
  assert.equal(checkOpenAIModel((await oa.json()) as unknown), 'gpt-cat-1');

  const unknown = await anthropicError(await get('/v1/models/claude-nope', SDK_HEADERS), 404, 'not_found_error');
  assert.match(unknown.message, /claude-nope/);
  // A model of an openai channel is callable on /v1/messages through translation, so an Anthropic client sees it.
  const translated = await get('/v1/models/gpt-cat-1', SDK_HEADERS);
  assert.equal(translated.status, 200);
  assert.equal(checkAnthropicModel((await translated.json()) as unknown), 'gpt-cat-1');
  // A model the key group may not use is not shown either.
  await anthropicError(await get('/v1/models/claude-cat-a', { 'x-api-key': LIMITED_KEY }), 404, 'not_found_error');

  const oaUnknown = await get('/v1/models/gpt-nope', { authorization: `Bearer ${TEST_KEY}` });
  assert.equal(oaUnknown.status, 404);
  const oaError = parseOpenAIError(await oaUnknown.text());
  assert.equal(oaError.code, 'model_not_found');
});

test('401 on /v1/models and /v1/models/{id} with a bad x-api-key is Anthropic-shaped', async () => {
  await anthropicError(await get('/v1/models', { 'x-api-key': UNKNOWN_KEY }), 401, 'authentication_error');
  await anthropicError(await get('/v1/models', { 'x-api-key': UNKNOWN_KEY, 'anthropic-version': VERSION }), 401, 'authentication_error');
  await anthropicError(await get('/v1/models/claude-cat-a', { 'x-api-key': UNKNOWN_KEY }), 401, 'authentication_error');
  await anthropicError(await get('/v1/models', { 'anthropic-version': VERSION }), 401, 'authentication_error');
  // A bad Bearer key without Anthropic headers stays in the OpenAI shape.
  const plain = await get('/v1/models', { authorization: `Bearer ${UNKNOWN_KEY}` });
  assert.equal(plain.status, 401);
  assert.equal(parseOpenAIError(await plain.text()).code, 'invalid_api_key');
});

// ---- 10. HEAD / ----

test('HEAD / answers 200 with an empty body (Claude Code opens a connection with it)', async () => {
  const res = await fetch(`${gw.url}/`, { method: 'HEAD' });
  assert.equal(res.status, 200);
  assert.equal((await res.arrayBuffer()).byteLength, 0);
});
