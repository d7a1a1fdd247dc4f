// The official @anthropic-ai/sdk (1.x) against the gateway over loopback HTTP: /v1/messages (whole and streamed),
// /v1/messages/count_tokens and /v1/models, with the caller's key as apiKey and as authToken; then what reaches the
// fake Anthropic upstream (headers, query, body bytes), the SSE bytes the client gets, and the usage records.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { Agent, fetch as undiciFetch } from 'undici';
import type { UsageRecord } from '../../core/store/store.js';
import {
  DEFAULT_ANTHROPIC_MODELS,
  DEFAULT_ANTHROPIC_USAGE,
  FakeAnthropic,
  anthropicChannel,
  defaultAnthropicReply,
  type AnthropicUsage,
  type FakeBlock,
  type RecordedAnthropicRequest,
} from '../helpers/fake-anthropic.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { readUntil, until, withDeadline } from '../helpers/poll.js';
import { fixturePath } from '../helpers/repo-root.js';

const WAIT_MS = 5_000;
const POLL = { timeoutMs: WAIT_MS, intervalMs: 20 };

/** Served only by channel a (claude-*): the listed and alias channels do not name it. */
const MODEL = 'claude-opus-4-1';
const OAUTH_BETA = 'oauth-2025-04-20';

let upstream: FakeAnthropic;
let gw: GatewayUnderTest;
/**
 * The client pool of the aborted-stream test, closed before the gateway stops: after an aborted response undici opens
 * a spare connection that never carries a request, and such a connection holds the gateway's stop() (the last test).
 */
const abortPool = new Agent();

before(async () => {
  upstream = await new FakeAnthropic('upstream-a').start();
  gw = await startGatewayUnderTest(
    configWith(`${anthropicChannel('a', upstream.url)}  - name: listed
    type: anthropic
    base_url: ${upstream.url}
    keys: ["sk-ant-upstream-listed"]
    models: ["claude-sonnet-4-5", "claude-haiku-4-5"]
    cooldown_ms: 0
  - name: alias
    type: anthropic
    base_url: ${upstream.url}
    keys: ["sk-ant-upstream-alias"]
    models:
      my-claude: claude-upstream-name
    cooldown_ms: 0
`),
  );
});

beforeEach(() => {
  upstream.reply = defaultAnthropicReply;
});

after(async () => {
  await abortPool.destroy();
  await gw.stop();
  await upstream.close();
});

// ---------------------------------------------------------------------------------------------------------------
// helpers

type Auth = 'apiKey' | 'authToken';

/** What the SDK put on the wire, seen through its `fetch` option (after all of its header merging). */
interface SentBySdk {
  readonly url: string;
  readonly headers: Headers;
}

function sdkClient(auth: Auth, sent: SentBySdk[], defaultHeaders: Record<string, string> = {}): Anthropic {
  return new Anthropic({
    // The other credential is null, not undefined, so nothing is read from ANTHROPIC_* in the environment.
    apiKey: auth === 'apiKey' ? TEST_KEY : null,
    authToken: auth === 'authToken' ? TEST_KEY : null,
    baseURL: gw.url,
    maxRetries: 0,
    defaultHeaders,
    fetch: async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      sent.push({ url, headers: new Headers(init?.headers) });
      return fetch(input, init);
    },
  });
}

/** The upstream request made after `before` requests had been recorded (exactly one new one). */
function onlyNewRequest(before: number): RecordedAnthropicRequest {
  assert.equal(upstream.requests.length, before + 1, 'exactly one upstream request');
  const req = upstream.requests[before];
  assert.ok(req);
  return req;
}

/** The caller's key appears in no upstream header, under any name. */
function assertCallerKeyAbsent(headers: IncomingHttpHeaders): void {
  for (const [name, value] of Object.entries(headers)) {
    const text = Array.isArray(value) ? value.join(', ') : (value ?? '');
    assert.ok(!text.includes(TEST_KEY), `the caller's key leaked to the upstream in ${name}`);
  }
}

function assertChannelKeyOnly(headers: IncomingHttpHeaders, channel: string): void {
  assert.equal(headers['x-api-key'], `sk-ant-upstream-${channel}`);
  assert.equal(headers['authorization'], undefined, 'no authorization header upstream');
  assertCallerKeyAbsent(headers);
}

function betaFlags(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((flag) => flag.trim())
    .filter((flag) => flag !== '');
}

function postMessages(body: string, headers: Record<string, string>, query = ''): Promise<Response> {
  return fetch(`${gw.url}/v1/messages${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** A POST through node:http, which (unlike fetch) lets a test send Connection and Keep-Alive headers of its choice. */
function rawHttpPost(path: string, headers: Record<string, string>, body: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, gw.url);
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'POST', agent: false, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
          // The connection was not asked to close (Connection names x-hop only): close it ourselves.
          req.destroy();
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function recordFor(id: string): Promise<UsageRecord> {
  return until(`a usage record for ${id}`, async () => (await gw.usage()).find((r) => r.requestId === id), POLL);
}

function expectedTokens(u: AnthropicUsage): Pick<UsageRecord, 'promptTokens' | 'cachedTokens' | 'cacheWriteTokens' | 'completionTokens' | 'reasoningTokens'> {
  return {
    promptTokens: u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0),
    cachedTokens: u.cacheRead ?? 0,
    cacheWriteTokens: u.cacheWrite ?? 0,
    completionTokens: u.output,
    reasoningTokens: u.thinking ?? 0,
  };
}

function tokensOf(r: UsageRecord): ReturnType<typeof expectedTokens> {
  return {
    promptTokens: r.promptTokens,
    cachedTokens: r.cachedTokens,
    cacheWriteTokens: r.cacheWriteTokens,
    completionTokens: r.completionTokens,
    reasoningTokens: r.reasoningTokens,
  };
}

const THREE_BLOCKS: readonly FakeBlock[] = [
  { type: 'thinking', thinking: 'The user wants the weather in Paris; call the tool.', signature: 'EqQBCkgIARABGAIiQ-sig' },
  { type: 'text', text: 'Let me look that up — un instant ✓' },
  { type: 'tool_use', id: 'toolu_01Fake', name: 'get_weather', input: { city: 'Paris', units: 'celsius', days: [1, 2] } },
];

// ---------------------------------------------------------------------------------------------------------------
// 1. The SDK, with the key as apiKey and as authToken

for (const auth of ['apiKey', 'authToken'] as const) {
  test(`${auth}: messages.create returns the upstream message; the upstream gets the channel key`, async () => {
    const sent: SentBySdk[] = [];
    const client = sdkClient(auth, sent);
    const before = upstream.requests.length;
    const message = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(message.type, 'message');
    assert.equal(message.role, 'assistant');
    assert.deepEqual(message.content, [{ type: 'text', text: 'reply from upstream-a' }]);
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.usage.input_tokens, DEFAULT_ANTHROPIC_USAGE.input);
    assert.equal(message.usage.cache_read_input_tokens, DEFAULT_ANTHROPIC_USAGE.cacheRead);
    // The SDK's request id is the gateway's, the one its usage record carries.
    assert.match(message._request_id ?? '', /^req_[0-9a-f]{32}$/);
    assert.equal((await gw.usage()).filter((r) => r.requestId === message._request_id).length, 1);

    // The SDK 1.x sends the key as a Bearer token in both modes, to the root base URL plus /v1/messages.
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.url, `${gw.url}/v1/messages`);
    assert.equal(sent[0]?.headers.get('authorization'), `Bearer ${TEST_KEY}`);
    assert.equal(sent[0]?.headers.get('x-api-key'), null);

    const got = onlyNewRequest(before);
    assert.equal(got.path, '/v1/messages');
    assertChannelKeyOnly(got.headers, 'a');
    assert.equal(got.body['model'], MODEL);
  });

  test(`${auth}: messages.stream(...).finalMessage() returns the streamed text`, async () => {
    const sent: SentBySdk[] = [];
    const client = sdkClient(auth, sent);
    const before = upstream.requests.length;
    const stream = client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    let deltas = '';
    stream.on('text', (text) => {
      deltas += text;
    });
    const message = await withDeadline(stream.finalMessage(), WAIT_MS, 'the stream finished');
    assert.equal(message.content.length, 1);
    const block = message.content[0];
    assert.ok(block?.type === 'text');
    assert.equal(block.text, 'reply from upstream-a');
    assert.equal(deltas, 'reply from upstream-a');
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.usage.output_tokens, DEFAULT_ANTHROPIC_USAGE.output);
    assert.equal(message.usage.input_tokens, DEFAULT_ANTHROPIC_USAGE.input);

    const got = onlyNewRequest(before);
    assert.equal(got.body['stream'], true);
    assert.equal(got.headers['accept'], 'text/event-stream');
    assertChannelKeyOnly(got.headers, 'a');
  });

  test(`${auth}: messages.countTokens returns the upstream count`, async () => {
    const sent: SentBySdk[] = [];
    const client = sdkClient(auth, sent);
    const before = upstream.requests.length;
    const count = await client.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'how many tokens?' }] });
    assert.deepEqual(count, { input_tokens: 1234 });
    const got = onlyNewRequest(before);
    assert.equal(got.path, '/v1/messages/count_tokens');
    assert.deepEqual(got.body, { model: MODEL, messages: [{ role: 'user', content: 'how many tokens?' }] });
    assertChannelKeyOnly(got.headers, 'a');
    assert.equal(got.headers['anthropic-version'], sent[0]?.headers.get('anthropic-version'));
  });

  test(`${auth}: models.list yields the concrete claude models in the Anthropic shape`, async () => {
    const sent: SentBySdk[] = [];
    const client = sdkClient(auth, sent);
    await gw.modelsDiscovered();
    const before = upstream.requests.length;
    const listedBefore = upstream.modelList.requests.length;
    const models: Anthropic.ModelInfo[] = [];
    for await (const model of client.models.list()) models.push(model);
    // claude-* of channel a is expanded over what the upstream lists; the exact names and the alias name as written.
    assert.deepEqual(models.map((m) => m.id).sort(), [...DEFAULT_ANTHROPIC_MODELS, 'claude-haiku-4-5', 'claude-sonnet-4-5', 'my-claude'].sort());
    for (const model of models) {
      assert.equal(model.type, 'model');
      assert.equal(typeof model.display_name, 'string');
      assert.ok(model.display_name.length > 0);
      assert.match(model.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      assert.ok(!Number.isNaN(Date.parse(model.created_at)));
    }
    const page = await client.models.list({ limit: 2 });
    assert.equal(page.data.length, 2);
    assert.equal(page.has_more, true);
    assert.equal(page.first_id, page.data[0]?.id);
    assert.equal(page.last_id, page.data[1]?.id);
    assert.equal(upstream.requests.length, before, 'the model list is the gateway’s own; no upstream call');
    assert.equal(upstream.modelList.requests.length, listedBefore, 'nor a model list read per request');
  });
}

// ---------------------------------------------------------------------------------------------------------------
// 2. What reaches the upstream: headers and query

test('headers: channel x-api-key only, anthropic-version as the SDK sent it, custom headers forwarded', async () => {
  const sent: SentBySdk[] = [];
  const client = sdkClient('apiKey', sent, { 'x-claude-code-session-id': 'sess-0042' });
  const before = upstream.requests.length;
  await client.messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
  const got = onlyNewRequest(before);
  assertChannelKeyOnly(got.headers, 'a');
  const version = sent[0]?.headers.get('anthropic-version');
  assert.ok(version !== null && version !== undefined && version !== '');
  assert.equal(got.headers['anthropic-version'], version, 'anthropic-version forwarded as sent');
  assert.equal(got.headers['x-claude-code-session-id'], 'sess-0042');
  assert.equal(got.headers['accept-encoding'], 'identity');
});

test('headers: a caller that sends x-api-key and no anthropic-version gets 2023-06-01 upstream', async () => {
  const before = upstream.requests.length;
  const res = await postMessages(JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }), {
    'x-api-key': TEST_KEY,
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const got = onlyNewRequest(before);
  assert.equal(got.headers['anthropic-version'], '2023-06-01');
  assertChannelKeyOnly(got.headers, 'a');
});

test('headers: a raw anthropic-version is forwarded unchanged', async () => {
  const before = upstream.requests.length;
  const res = await postMessages(JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }), {
    'x-api-key': TEST_KEY,
    'anthropic-version': '2023-01-01',
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.equal(onlyNewRequest(before).headers['anthropic-version'], '2023-01-01');
});

test('headers: anthropic-beta is forwarded without the oauth flag; the other flags are kept in order', async () => {
  const before = upstream.requests.length;
  const res = await postMessages(JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }), {
    authorization: `Bearer ${TEST_KEY}`,
    'anthropic-version': '2023-06-01',
    'anthropic-beta': `interleaved-thinking-2025-05-14, ${OAUTH_BETA},context-1m-2025-08-07`,
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const got = onlyNewRequest(before);
  assert.deepEqual(betaFlags(got.headers['anthropic-beta']), ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07']);
  assertChannelKeyOnly(got.headers, 'a');
});

test('headers: an anthropic-beta of only the oauth flag is not forwarded at all', async () => {
  const before = upstream.requests.length;
  const res = await postMessages(JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }), {
    authorization: `Bearer ${TEST_KEY}`,
    'anthropic-beta': OAUTH_BETA,
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.equal(onlyNewRequest(before).headers['anthropic-beta'], undefined);
});

test('headers: SDK 1.12 with a plain authToken sends Bearer and adds no oauth beta of its own', async () => {
  const sent: SentBySdk[] = [];
  const client = sdkClient('authToken', sent);
  const before = upstream.requests.length;
  await client.messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
  // prepareRequest() appends oauth-2025-04-20 only for token-provider credentials (credentials/config/profile).
  assert.equal(sent[0]?.headers.get('authorization'), `Bearer ${TEST_KEY}`);
  assert.equal(sent[0]?.headers.get('anthropic-beta'), null);
  const got = onlyNewRequest(before);
  assert.equal(got.headers['anthropic-beta'], undefined);
  assertChannelKeyOnly(got.headers, 'a');
});

test('headers: the SDK with authToken in OAuth mode (betas incl. the oauth flag): the upstream gets the other betas only', async () => {
  const sent: SentBySdk[] = [];
  const client = sdkClient('authToken', sent);
  const before = upstream.requests.length;
  const message = await client.beta.messages.create({
    model: MODEL,
    max_tokens: 16,
    messages: [{ role: 'user', content: 'hi' }],
    betas: ['interleaved-thinking-2025-05-14', OAUTH_BETA, 'context-1m-2025-08-07'],
  });
  assert.equal(message.content[0]?.type, 'text');
  const sentFlags = betaFlags(sent[0]?.headers.get('anthropic-beta') ?? undefined) ?? [];
  assert.deepEqual(sentFlags, ['interleaved-thinking-2025-05-14', OAUTH_BETA, 'context-1m-2025-08-07'], 'what the client sent');
  const got = onlyNewRequest(before);
  assert.deepEqual(betaFlags(got.headers['anthropic-beta']), ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07']);
  assert.equal(got.headers['anthropic-version'], sent[0]?.headers.get('anthropic-version'));
  assertChannelKeyOnly(got.headers, 'a');
});

test('query: /v1/messages?beta=true reaches the upstream as /v1/messages?beta=true', async () => {
  const before = upstream.requests.length;
  const res = await postMessages(
    JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    { authorization: `Bearer ${TEST_KEY}`, 'anthropic-version': '2023-06-01' },
    '?beta=true',
  );
  assert.equal(res.status, 200);
  const json = (await res.json()) as { content: { text: string }[] };
  assert.equal(json.content[0]?.text, 'reply from upstream-a');
  assert.equal(onlyNewRequest(before).path, '/v1/messages?beta=true');
});

test('headers: hop-by-hop headers (and those named in Connection) stay behind; end-to-end ones go on', async () => {
  const before = upstream.requests.length;
  const res = await rawHttpPost(
    '/v1/messages?beta=true',
    {
      'content-type': 'application/json',
      authorization: `Bearer ${TEST_KEY}`,
      'anthropic-version': '2023-06-01',
      connection: 'x-hop',
      'x-hop': 'for-the-next-hop-only',
      'keep-alive': 'timeout=5, max=100',
      te: 'trailers',
      'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
      'x-forwarded-for': '10.1.2.3',
      'x-claude-code-session-id': 'sess-7f3a',
      'x-app': 'cli',
    },
    JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  );
  assert.equal(res.status, 200, res.body.toString());
  const got = onlyNewRequest(before);
  assert.equal(got.headers['x-hop'], undefined, 'a header named in Connection is hop-by-hop');
  assert.equal(got.headers['keep-alive'], undefined);
  assert.equal(got.headers['te'], undefined);
  assert.equal(got.headers['proxy-authorization'], undefined);
  assert.equal(got.headers['x-forwarded-for'], undefined);
  assert.ok(!String(got.headers['connection'] ?? '').includes('x-hop'), 'the client Connection header is not forwarded');
  assert.equal(got.headers['x-claude-code-session-id'], 'sess-7f3a');
  assert.equal(got.headers['x-app'], 'cli');
  assert.equal(got.path, '/v1/messages?beta=true');
  assertChannelKeyOnly(got.headers, 'a');
});

// ---------------------------------------------------------------------------------------------------------------
// 3. The body, byte for byte

test('body: a Claude Code style body reaches the upstream byte for byte', async () => {
  // Spacing, key order, escapes and non-ASCII are all part of "byte for byte".
  const body =
    '{ "model": "claude-opus-4-1", "max_tokens": 32000,\n' +
    '  "messages": [{"role":"system","content":"You are Claude Code."},' +
    '{"role":"user","content":[{"type":"text","text":"caf\\u00e9 ✓ — hi","cache_control":{"type":"ephemeral","ttl":"1h"}}]}],\n' +
    '  "thinking": {"type":"adaptive"},\n' +
    '  "output_config": {"effort":"medium"},\n' +
    '  "context_management": {"edits":[{"type":"clear_tool_uses_20250919","trigger":{"type":"input_tokens","value":100000},"keep":{"type":"tool_uses","value":3}}]},\n' +
    '  "metadata": {"user_id": "{\\"device_id\\":\\"d1\\",\\"session_id\\":\\"s1\\"}"},\n' +
    '  "x_future_field": {"nested": [1, 2.50, -0.0, 1e3, null, true]},\n' +
    '  "temperature": 1.0\n' +
    '}';
  const before = upstream.requests.length;
  const res = await postMessages(body, { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  const got = onlyNewRequest(before);
  assert.ok(got.raw.equals(Buffer.from(body, 'utf8')), `upstream body differs:\n${got.raw.toString('utf8')}`);
  assert.equal(got.headers['content-length'], String(Buffer.byteLength(body)));
});

test('body: a real Claude Code body (55 KB, read as a skeleton) reaches the upstream byte for byte, alias or not', async () => {
  // Bodies this large are not parsed whole (core/formats/json-skeleton.ts): what routing reads is decoded, the
  // bulk is not, and the client's bytes are what is sent.
  const fixture = readFileSync(fixturePath('requests/claude-code-messages-tool-result.json'));
  assert.ok(fixture.length > 50_000);
  const model = (JSON.parse(fixture.toString('utf8')) as { model: string }).model;
  for (const [sent, expected] of [
    [fixture, fixture],
    [
      Buffer.from(fixture.toString('utf8').replace(`"model": "${model}"`, '"model": "my-claude"'), 'utf8'),
      Buffer.from(fixture.toString('utf8').replace(`"model": "${model}"`, '"model": "claude-upstream-name"'), 'utf8'),
    ],
  ] as const) {
    assert.ok(!sent.equals(fixture) || expected === fixture, "the alias case renames the model");
    const before = upstream.requests.length;
    const res = await postMessages(sent.toString('utf8'), { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' });
    assert.equal(res.status, 200, await res.clone().text());
    await res.arrayBuffer();
    const got = onlyNewRequest(before);
    assert.ok(got.raw.equals(expected), 'upstream body differs from the expected bytes');
  }
});

test('body: with a model alias only `model` changes', async () => {
  const original = {
    model: 'my-claude',
    max_tokens: 1024,
    messages: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ type: 'text', text: 'héllo ✓' }] },
    ],
    thinking: { type: 'adaptive' },
    output_config: { effort: 'medium' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    x_future_field: { a: [1, 2, { b: null }] },
    stream: false,
  };
  const before = upstream.requests.length;
  const res = await postMessages(JSON.stringify(original), { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' });
  assert.equal(res.status, 200);
  const json = (await res.json()) as { content: { text: string }[] };
  assert.equal(json.content[0]?.text, 'reply from upstream-a');
  const got = onlyNewRequest(before);
  const expected = { ...original, model: 'claude-upstream-name' };
  assert.deepEqual(got.body, expected);
  // A compact body in, the same compact body (same key order) out, with only the model replaced.
  assert.equal(got.raw.toString('utf8'), JSON.stringify(expected));
  assertChannelKeyOnly(got.headers, 'alias');
  const id = res.headers.get('x-request-id');
  assert.ok(id);
  const record = await recordFor(id);
  assert.equal(record.model, 'my-claude');
  assert.equal(record.upstreamModel, 'claude-upstream-name');
  assert.equal(record.channel, 'alias');
});

test('body: with a model alias, numbers in the body reach the upstream unchanged (only the model value is rewritten)', async () => {
  // A JSON integer beyond 2^53 (an id in a tool result, say) is valid JSON and the API reads it exactly;
  // re-serializing the parsed body would round it. The relay edits the model value in the bytes instead.
  const body = '{"model":"my-claude","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"x_future_field":{"id":12345678901234567890}}';
  const before = upstream.requests.length;
  const res = await postMessages(body, { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const got = onlyNewRequest(before);
  assert.equal(got.body['model'], 'claude-upstream-name');
  assert.equal(
    got.raw.toString('utf8'),
    body.replace('"model":"my-claude"', '"model":"claude-upstream-name"'),
    'only the model may change (a re-serialized body would carry 12345678901234567000)',
  );
});

// ---------------------------------------------------------------------------------------------------------------
// 4. SSE, byte for byte

test('stream: the client receives exactly the upstream SSE bytes (thinking, text and tool_use blocks)', async () => {
  upstream.reply = () => ({ kind: 'stream', content: THREE_BLOCKS });
  const res = await postMessages(
    JSON.stringify({ model: MODEL, max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'weather in Paris?' }] }),
    { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', accept: 'application/json' },
  );
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream\b/);
  const received = Buffer.from(await res.arrayBuffer());
  assert.ok(upstream.lastStreamBytes.length > 0);
  assert.ok(received.equals(upstream.lastStreamBytes), `the SSE bytes differ:\n${received.toString('utf8')}`);
  const text = received.toString('utf8');
  for (const delta of ['thinking_delta', 'signature_delta', 'text_delta', 'input_json_delta']) assert.ok(text.includes(`"${delta}"`), delta);
  assert.ok(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n'));
  assert.ok(!text.includes('[DONE]'));
});

test('stream: the SDK assembles the thinking, text and tool_use blocks of the relayed stream', async () => {
  upstream.reply = () => ({ kind: 'stream', content: THREE_BLOCKS });
  const client = sdkClient('apiKey', []);
  const message = await withDeadline(
    client.messages
      .stream({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'weather in Paris?' }] })
      .finalMessage(),
    WAIT_MS,
    'the stream finished',
  );
  assert.deepEqual(
    message.content.map((block) => block.type),
    ['thinking', 'text', 'tool_use'],
  );
  const [thinking, text, toolUse] = message.content;
  assert.ok(thinking?.type === 'thinking' && text?.type === 'text' && toolUse?.type === 'tool_use');
  assert.equal(thinking.thinking, 'The user wants the weather in Paris; call the tool.');
  assert.equal(thinking.signature, 'EqQBCkgIARABGAIiQ-sig');
  assert.equal(text.text, 'Let me look that up — un instant ✓');
  assert.equal(toolUse.name, 'get_weather');
  assert.deepEqual(toolUse.input, { city: 'Paris', units: 'celsius', days: [1, 2] });
  assert.equal(message.stop_reason, 'tool_use');
});

// ---------------------------------------------------------------------------------------------------------------
// 5. Usage records

test('usage: a whole message is recorded with the cache and thinking counts the upstream sent', async () => {
  const usage: AnthropicUsage = { input: 37, output: 211, cacheRead: 4096, cacheWrite: 512, thinking: 150 };
  upstream.reply = () => ({ kind: 'message', content: [{ type: 'text', text: 'counted' }], usage });
  const client = sdkClient('apiKey', []);
  const { data, response } = await client.messages
    .create({ model: MODEL, max_tokens: 512, messages: [{ role: 'user', content: 'count me' }] })
    .withResponse();
  assert.deepEqual(data.content, [{ type: 'text', text: 'counted' }]);
  const id = response.headers.get('x-request-id');
  assert.ok(id);
  const record = await recordFor(id);
  assert.deepEqual(tokensOf(record), expectedTokens(usage));
  assert.deepEqual(tokensOf(record), { promptTokens: 37 + 4096 + 512, cachedTokens: 4096, cacheWriteTokens: 512, completionTokens: 211, reasoningTokens: 150 });
  assert.equal(record.route, '/v1/messages');
  assert.equal(record.channel, 'a');
  assert.equal(record.status, 200);
  assert.equal(record.stream, false);
  assert.equal(record.model, MODEL);
  assert.equal(record.upstreamModel, MODEL);
  assert.equal(record.keyName, 'tester');
  assert.equal(record.group, 'pro');
  assert.equal(record.errorCode, null);
  assert.equal(record.aborted, false);
});

test('usage: a stream is recorded with message_start cache counts and message_delta output and thinking', async () => {
  const usage: AnthropicUsage = { input: 12, output: 345, cacheRead: 20000, cacheWrite: 3000, thinking: 99 };
  upstream.reply = () => ({ kind: 'stream', content: THREE_BLOCKS, usage });
  const client = sdkClient('authToken', []);
  const stream = client.messages.stream({ model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: 'stream me' }] });
  const { response } = await stream.withResponse();
  const message = await withDeadline(stream.finalMessage(), WAIT_MS, 'the stream finished');
  assert.equal(message.usage.output_tokens, 345);
  const id = response.headers.get('x-request-id');
  assert.ok(id);
  const record = await recordFor(id);
  assert.deepEqual(tokensOf(record), expectedTokens(usage));
  assert.equal(record.route, '/v1/messages');
  assert.equal(record.channel, 'a');
  assert.equal(record.status, 200);
  assert.equal(record.stream, true);
  assert.equal(record.aborted, false);
  assert.ok(record.ttftMs !== null && record.ttftMs >= 0);
});

test('usage: a stream without thinking tokens and with the default cache counts', async () => {
  upstream.reply = () => ({ kind: 'stream' });
  const res = await postMessages(JSON.stringify({ model: MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'x' }] }), {
    'x-api-key': TEST_KEY,
    'anthropic-version': '2023-06-01',
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const id = res.headers.get('x-request-id');
  assert.ok(id);
  const record = await recordFor(id);
  assert.deepEqual(tokensOf(record), expectedTokens(DEFAULT_ANTHROPIC_USAGE));
  assert.equal(record.stream, true);
  assert.equal(record.status, 200);
});

// ---------------------------------------------------------------------------------------------------------------
// 6. An aborted stream

test('an aborted stream writes one record: aborted, with the usage known from message_start', async () => {
  const usage: AnthropicUsage = { input: 55, output: 400, cacheRead: 7000, cacheWrite: 900, thinking: 10 };
  upstream.reply = () => ({ kind: 'stream', content: [{ type: 'text', text: 'slow '.repeat(80) }], usage, delayMs: 40 });
  const closed0 = upstream.closedEarly;
  const controller = new AbortController();
  const res = await undiciFetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: MODEL, max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'go slowly' }] }),
    signal: controller.signal,
    dispatcher: abortPool,
  });
  assert.equal(res.status, 200);
  const id = res.headers.get('x-request-id');
  assert.ok(id);
  const reader = res.body?.getReader();
  assert.ok(reader);
  const text = await readUntil(reader, 'event: content_block_delta', WAIT_MS, 'the first content_block_delta');
  assert.ok(!text.includes('message_delta'), 'aborted before the final usage');
  controller.abort();
  await reader.cancel().catch(() => undefined);

  const record = await recordFor(id);
  assert.equal(record.aborted, true);
  assert.equal(record.stream, true);
  assert.equal(record.route, '/v1/messages');
  assert.equal(record.channel, 'a');
  assert.equal(record.status, 200, 'the status line was already on the wire');
  // message_start carried input and cache counts, and output_tokens 1; message_delta never came.
  assert.deepEqual(tokensOf(record), {
    promptTokens: 55 + 7000 + 900,
    cachedTokens: 7000,
    cacheWriteTokens: 900,
    completionTokens: 1,
    reasoningTokens: 0,
  });
  assert.equal((await gw.usage()).filter((r) => r.requestId === id).length, 1, 'exactly one record');
  await until('the upstream to see its response closed early', () => (upstream.closedEarly > closed0 ? true : undefined), POLL);
});

// ---------------------------------------------------------------------------------------------------------------
// Shutdown is not held up by a client connection that carries no request

test('stop() finishes promptly while a client holds a connection that never sent a request', async () => {
  // What an HTTP client's spare or pre-opened connection looks like to the gateway (Node's fetch leaves one after the
  // aborted stream above). Nothing is in flight, so the graceful stop has nothing to wait for.
  const other = await startGatewayUnderTest(configWith(anthropicChannel('a', upstream.url)));
  const { hostname, port } = new URL(other.url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  const started = Date.now();
  const stopping = other.stop();
  try {
    // Nothing is in flight, so the grace (shutdown_grace_ms 5000) does not apply: a stop takes milliseconds.
    await withDeadline(stopping, 2_000, 'stop() returns with a connection without a request open').catch((err: unknown) =>
      assert.fail(`${String(err)}: still waiting after ${Date.now() - started} ms`),
    );
  } finally {
    // Releases the stop if it is waiting for this client, so the suite itself ends.
    socket.destroy();
    await withDeadline(stopping, WAIT_MS, 'the gateway stopped once the client closed its connection');
  }
});
