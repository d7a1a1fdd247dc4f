// The OpenAI Responses API through the gateway over loopback HTTP: the official openai SDK (6.x) and raw fetch
// against fake Responses upstreams. /v1/responses (whole and streamed) and /v1/responses/compact; what reaches the
// upstream (store:false always, drop_params, every item and tool type byte for byte), the SSE bytes the client
// gets, usage records, conversation affinity by prompt_cache_key, and errors before and after a stream began.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { UsageRecord } from '../../core/store/store.js';
import {
  COMPACTION_ID,
  DEFAULT_RESPONSES_USAGE,
  FakeResponses,
  RESPONSE_ID,
  defaultResponsesReply,
  responsesChannel,
  type FakeOutputItem,
  type RecordedRequest,
  type ResponsesUsage,
} from '../helpers/fake-responses.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until, withDeadline } from '../helpers/poll.js';
import { splitSse } from '../helpers/sse-text.js';

const WAIT_MS = 5_000;
const POLL = { timeoutMs: WAIT_MS, intervalMs: 20 };
const MODEL = 'gpt-5.4';
const DROP_PARAMS = '    drop_params: [client_metadata, service_tier]\n';

/** Channel a (no drop_params), on its own gateway. */
let upstream: FakeResponses;
let gw: GatewayUnderTest;
let client: OpenAI;
/** Channel d (drop_params: client_metadata, service_tier), on its own gateway. */
let dropUpstream: FakeResponses;
let gwDrop: GatewayUnderTest;
/** Three equal channels t1, t2, t3, for affinity. */
const trio: FakeResponses[] = [];
let gwTrio: GatewayUnderTest;

before(async () => {
  upstream = await new FakeResponses('upstream-a').start();
  gw = await startGatewayUnderTest(configWith(responsesChannel('a', upstream.url)));
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  dropUpstream = await new FakeResponses('upstream-d').start();
  gwDrop = await startGatewayUnderTest(configWith(responsesChannel('d', dropUpstream.url, DROP_PARAMS)));
  for (const name of ['t1', 't2', 't3']) trio.push(await new FakeResponses(name).start());
  gwTrio = await startGatewayUnderTest(configWith(trio.map((fake) => responsesChannel(fake.name, fake.url)).join('')));
});

beforeEach(() => {
  for (const fake of [upstream, dropUpstream, ...trio]) fake.reply = defaultResponsesReply;
});

after(async () => {
  for (const g of [gw, gwDrop, gwTrio]) await g?.stop();
  for (const fake of [upstream, dropUpstream, ...trio]) await fake?.close();
});

// ---------------------------------------------------------------------------------------------------------------
// helpers

function post(target: GatewayUnderTest, path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${target.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', ...headers },
    body,
  });
}

/** The one upstream request made after `before` requests had been recorded. */
function onlyNewRequest(fake: FakeResponses, before: number): RecordedRequest {
  assert.equal(fake.requests.length, before + 1, `exactly one upstream request to ${fake.name}`);
  const req = fake.requests[before];
  assert.ok(req);
  return req;
}

function assertSameBytes(actual: Buffer, expected: string | Buffer, what: string): void {
  const want = typeof expected === 'string' ? Buffer.from(expected, 'utf8') : expected;
  assert.ok(actual.equals(want), `${what} differs:\n--- got\n${actual.toString('utf8')}\n--- expected\n${want.toString('utf8')}`);
}

/**
 * The body a caller sent without `store`, given the upstream's: the inserted `"store":false` pair (first or last,
 * with its comma) taken out again. Fails when the upstream body is anything else.
 */
function withoutInsertedStore(upstreamText: string): string {
  const first = '"store":false,';
  const open = upstreamText.indexOf('{');
  if (upstreamText.startsWith(first, open + 1)) return upstreamText.slice(0, open + 1) + upstreamText.slice(open + 1 + first.length);
  const last = ',"store":false';
  const close = upstreamText.lastIndexOf('}');
  if (upstreamText.slice(0, close).endsWith(last)) return upstreamText.slice(0, close - last.length) + upstreamText.slice(close);
  assert.fail(`no inserted "store":false at either end of the upstream body:\n${upstreamText}`);
}

function recordFor(target: GatewayUnderTest, id: string): Promise<UsageRecord> {
  return until(`a usage record for ${id}`, async () => (await target.usage()).find((r) => r.requestId === id), POLL);
}

type Tokens = Pick<UsageRecord, 'promptTokens' | 'cachedTokens' | 'completionTokens' | 'reasoningTokens'>;

function tokensOf(r: UsageRecord): Tokens {
  return { promptTokens: r.promptTokens, cachedTokens: r.cachedTokens, completionTokens: r.completionTokens, reasoningTokens: r.reasoningTokens };
}

/** input_tokens already include the cached ones, as the record counts them. */
function expectedTokens(u: ResponsesUsage): Tokens {
  return { promptTokens: u.input, cachedTokens: u.cached ?? 0, completionTokens: u.output, reasoningTokens: u.reasoning ?? 0 };
}

interface ParsedFrame {
  readonly event: string | null;
  readonly data: Record<string, unknown>;
}

/** The frames of an SSE body, each with its JSON data parsed. */
function parseSse(text: string): ParsedFrame[] {
  return splitSse(text).map((frame) => ({ event: frame.event, data: JSON.parse(frame.data ?? 'null') as Record<string, unknown> }));
}

interface OpenAIErrorBody {
  readonly error: { readonly message: string; readonly type: string; readonly param: string | null; readonly code: string | null };
}

/** An answer in OpenAI's error shape: exactly {error:{message,type,param,code}}. */
async function openAIError(res: Response, status: number): Promise<OpenAIErrorBody['error']> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const json = JSON.parse(text) as OpenAIErrorBody;
  assert.deepEqual(Object.keys(json), ['error']);
  assert.deepEqual(Object.keys(json.error).sort(), ['code', 'message', 'param', 'type']);
  assert.equal(typeof json.error.message, 'string');
  assert.ok(json.error.message.length > 0);
  return json.error;
}

function withoutSequence(data: Record<string, unknown>): Record<string, unknown> {
  const { sequence_number: _ignored, ...rest } = data;
  return rest;
}

const REASONING_TOOL_TEXT: readonly FakeOutputItem[] = [
  {
    type: 'reasoning',
    id: 'rs_0a1',
    summary: ['The user wants the weather; call the tool.', 'Then answer — briefly ✓'],
    encryptedContent: 'gAAAAABo-reasoning/opaque+blob==',
  },
  { type: 'function_call', id: 'fc_0a1', callId: 'call_a1', name: 'get_weather', arguments: '{"city":"Paris","units":"celsius"}' },
  { type: 'message', id: 'msg_0a1', text: 'Il fait beau à Paris — 21 °C ✓' },
];

/**
 * A Codex-style request: every input item type (messages, reasoning with encrypted_content, function_call and its
 * output, a compaction item, an additional_tools item, a trailing compaction_trigger), tools of types function,
 * namespace, custom and web_search, client_metadata; plus number spellings and escapes a re-serialization would change.
 */
function codexBody(store: string | null): string {
  const request = {
    model: MODEL,
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the build' }] },
      { type: 'compaction', id: 'cmp_01', encrypted_content: 'gAAAAB-earlier-compaction==' },
      {
        type: 'reasoning',
        id: 'rs_01',
        summary: [{ type: 'summary_text', text: 'Look at the failing test.' }],
        content: null,
        encrypted_content: 'gAAAAABo-opaque-reasoning+/==',
      },
      { type: 'function_call', id: 'fc_01', call_id: 'call_01', name: 'shell', arguments: '{"command":["npm","test"]}' },
      { type: 'function_call_output', call_id: 'call_01', output: 'exit 1: 3 failing' },
      { type: 'custom_tool_call', id: 'ctc_01', call_id: 'call_02', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
      { type: 'custom_tool_call_output', call_id: 'call_02', output: 'Done!' },
      {
        type: 'additional_tools',
        tools: [{ type: 'function', name: 'view_image', description: 'Show an image', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }], phase: 'final_answer' },
      { type: 'compaction_trigger' },
    ],
    tools: [
      { type: 'function', name: 'shell', description: 'Run a command', strict: false, parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'] } },
      {
        type: 'namespace',
        name: 'mcp__github',
        description: 'GitHub tools',
        tools: [{ type: 'function', name: 'list_prs', parameters: { type: 'object', properties: {} } }],
      },
      { type: 'custom', name: 'apply_patch', description: 'Apply a patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' } },
      { type: 'web_search', external_web_access: false },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { effort: 'medium', summary: 'auto' },
    ...(store === null ? {} : { store: '__STORE__' }),
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: '019a-thread-0001',
    text: { verbosity: 'low' },
    client_metadata: { 'x-codex-installation-id': 'inst-1' },
  };
  const pretty = JSON.stringify(request, null, 2).replace('"__STORE__"', store ?? '');
  // Spellings JSON.stringify would not write back: a big integer, 1.50, 1e3, -0.0, \u escapes, an escaped slash.
  return `{"x_future": {"id": 12345678901234567890, "n": [1.50, 1e3, -0.0], "s": "caf\\u00e9 \\/ \\ud83d\\ude00"},${pretty.slice(1)}`;
}

// ---------------------------------------------------------------------------------------------------------------
// 1. The SDK: create (whole and streamed), the stream helper, compact

describe('the openai SDK', () => {
  test('responses.create returns the upstream response; the upstream gets the channel key at /v1/responses', async () => {
    const before = upstream.requests.length;
    const { data, response, request_id } = await client.responses.create({ model: MODEL, input: 'hi' }).withResponse();
    assert.equal(data.id, RESPONSE_ID);
    assert.equal(data.object, 'response');
    assert.equal(data.status, 'completed');
    assert.equal(data.output_text, 'reply from upstream-a');
    assert.deepEqual(
      data.output.map((item) => item.type),
      ['reasoning', 'message'],
    );
    assert.equal(data.usage?.input_tokens, DEFAULT_RESPONSES_USAGE.input);
    assert.equal(data.usage?.input_tokens_details.cached_tokens, DEFAULT_RESPONSES_USAGE.cached);
    assert.match(response.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
    assert.equal(request_id, response.headers.get('x-request-id'), 'the SDK reads the gateway’s request id');

    const got = onlyNewRequest(upstream, before);
    assert.equal(got.method, 'POST');
    assert.equal(got.path, '/v1/responses');
    assert.equal(got.headers['authorization'], 'Bearer sk-upstream-a');
    assert.ok(!JSON.stringify(got.headers).includes(TEST_KEY), "the caller's key never reaches the upstream");
    assert.equal(got.body['model'], MODEL);
    assert.equal(got.body['store'], false);
  });

  test('responses.create with stream: the events arrive in order, sequence numbers from 0, response.completed last', async () => {
    upstream.reply = () => ({ kind: 'stream', output: REASONING_TOOL_TEXT });
    const before = upstream.requests.length;
    const stream = await client.responses.create({ model: MODEL, input: 'weather in Paris?', stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    let text = '';
    let args = '';
    await withDeadline(
      (async () => {
        for await (const event of stream) {
          events.push(event);
          if (event.type === 'response.output_text.delta') text += event.delta;
          if (event.type === 'response.function_call_arguments.delta') args += event.delta;
        }
      })(),
      WAIT_MS,
      'the stream ended',
    );
    assert.equal(text, 'Il fait beau à Paris — 21 °C ✓');
    assert.equal(args, '{"city":"Paris","units":"celsius"}');
    assert.deepEqual(
      events.map((e) => e.sequence_number),
      events.map((_, i) => i),
    );
    assert.equal(events[0]?.type, 'response.created');
    assert.equal(events[1]?.type, 'response.in_progress');
    const last = events[events.length - 1];
    assert.ok(last?.type === 'response.completed');
    assert.equal(last.response.id, RESPONSE_ID);
    assert.equal(last.response.usage?.output_tokens, DEFAULT_RESPONSES_USAGE.output);
    assert.equal(last.response.usage?.output_tokens_details.reasoning_tokens, DEFAULT_RESPONSES_USAGE.reasoning);
    const done = events.filter((e) => e.type === 'response.output_item.done').map((e) => (e.type === 'response.output_item.done' ? e.item.type : ''));
    assert.deepEqual(done, ['reasoning', 'function_call', 'message']);
    const reasoning = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'reasoning');
    assert.ok(reasoning?.type === 'response.output_item.done' && reasoning.item.type === 'reasoning');
    assert.equal(reasoning.item.encrypted_content, 'gAAAAABo-reasoning/opaque+blob==');
    const got = onlyNewRequest(upstream, before);
    assert.equal(got.body['stream'], true);
    assert.equal(got.body['store'], false);
  });

  test('responses.stream(...).finalResponse() assembles reasoning, the function call and the text', async () => {
    upstream.reply = () => ({ kind: 'stream', output: REASONING_TOOL_TEXT });
    const stream = client.responses.stream({ model: MODEL, input: 'weather in Paris?' });
    let deltas = '';
    stream.on('response.output_text.delta', (event) => {
      deltas += event.delta;
    });
    const final = await withDeadline(stream.finalResponse(), WAIT_MS, 'the stream finished');
    assert.equal(final.status, 'completed');
    assert.equal(final.output_text, 'Il fait beau à Paris — 21 °C ✓');
    assert.equal(deltas, final.output_text);
    const [reasoning, call, message] = final.output;
    assert.ok(reasoning?.type === 'reasoning' && call?.type === 'function_call' && message?.type === 'message');
    assert.deepEqual(
      reasoning.summary.map((s) => s.text),
      ['The user wants the weather; call the tool.', 'Then answer — briefly ✓'],
    );
    assert.equal(reasoning.encrypted_content, 'gAAAAABo-reasoning/opaque+blob==');
    assert.equal(call.call_id, 'call_a1');
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris', units: 'celsius' });
  });

  test('responses.compact returns the compaction object unchanged; the upstream path is /v1/responses/compact', async () => {
    const before = upstream.requests.length;
    const input: OpenAI.Responses.ResponseInputItem[] = [
      { role: 'user', content: 'fix the build' },
      { role: 'assistant', content: 'Working on it.' },
      { role: 'user', content: [{ type: 'input_text', text: 'and run the tests — ✓' }] },
    ];
    const { data, response } = await client.responses.compact({ model: MODEL, input, prompt_cache_key: 'thread-compact-sdk' }).withResponse();
    assert.equal(data.id, COMPACTION_ID);
    assert.equal(data.object, 'response.compaction');
    const { _request_id: _ignored, ...body } = data as typeof data & { _request_id?: string | null };
    assert.deepEqual(body, JSON.parse(upstream.lastBodyBytes.toString('utf8')), 'the object as the upstream sent it');
    const last = data.output[data.output.length - 1];
    assert.ok(last?.type === 'compaction');
    assert.equal(last.encrypted_content, 'gAAAAB-fake-compaction+/=opaque');
    assert.equal(data.output.length, 3, 'the two user messages, then the compaction item');
    assert.ok(response.headers.get('x-request-id'));

    const got = onlyNewRequest(upstream, before);
    assert.equal(got.path, '/v1/responses/compact');
    assert.equal(got.headers['authorization'], 'Bearer sk-upstream-a');
    assert.equal('store' in got.body, false, 'no store on /compact');
    assert.deepEqual(got.body, { model: MODEL, input, prompt_cache_key: 'thread-compact-sdk' });
  });

  test('/v1/responses/compact: the client gets the upstream bytes, the opaque encrypted_content included', async () => {
    upstream.reply = () => ({
      kind: 'response',
      output: [{ type: 'compaction', id: 'cmp_bytes', encryptedContent: 'gAAAAB\u00e9+/==\\"quoted\\"\u2028end' }],
    });
    const res = await post(gw, '/v1/responses/compact', JSON.stringify({ model: MODEL, input: [{ role: 'user', content: 'keep me' }] }));
    assert.equal(res.status, 200);
    const received = Buffer.from(await res.arrayBuffer());
    assert.ok(upstream.lastBodyBytes.length > 0);
    assertSameBytes(received, upstream.lastBodyBytes, 'the /compact body');
    const json = JSON.parse(received.toString('utf8')) as { output: { type: string; encrypted_content?: string }[] };
    assert.equal(json.output[1]?.encrypted_content, 'gAAAAB\u00e9+/==\\"quoted\\"\u2028end');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 2. store:false, always, and nothing else changes

describe('store', () => {
  const body = (store: string): string =>
    `{ "model": "${MODEL}",\n  "input": [{"role":"user","content":"caf\\u00e9 ✓"}],\n  "store": ${store},\n  "metadata": {"n": 12345678901234567890, "f": 1.50},\n  "prompt_cache_key": "thread-store" }`;

  test('caller sent store:true: the upstream gets store:false, the only byte difference that value', async () => {
    const sent = body('true');
    const before = upstream.requests.length;
    const res = await post(gw, '/v1/responses', sent);
    assert.equal(res.status, 200, await res.clone().text());
    await res.arrayBuffer();
    const got = onlyNewRequest(upstream, before);
    assertSameBytes(got.raw, sent.replace('"store": true', '"store": false'), 'the upstream body');
    assert.equal(got.headers['content-length'], String(got.raw.length));
  });

  test('caller sent no store: the upstream gets store:false and otherwise the same bytes', async () => {
    const sent = `{ "model": "${MODEL}",\n  "input": [{"role":"user","content":"caf\\u00e9 ✓"}],\n  "metadata": {"n": 12345678901234567890} }`;
    const before = upstream.requests.length;
    const res = await post(gw, '/v1/responses', sent);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const got = onlyNewRequest(upstream, before);
    assert.equal(got.body['store'], false);
    assert.equal(withoutInsertedStore(got.raw.toString('utf8')), sent);
    assert.equal(got.headers['content-length'], String(got.raw.length));
  });

  test('caller sent store:false: the body goes up byte for byte', async () => {
    const sent = body('false');
    const before = upstream.requests.length;
    const res = await post(gw, '/v1/responses', sent);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assertSameBytes(onlyNewRequest(upstream, before).raw, sent, 'the upstream body');
  });

  test('caller sent store:null: the upstream gets store:false', async () => {
    const sent = body('null');
    const before = upstream.requests.length;
    const res = await post(gw, '/v1/responses', sent);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assertSameBytes(onlyNewRequest(upstream, before).raw, sent.replace('"store": null', '"store": false'), 'the upstream body');
  });

  test('a streamed request with store:true: store:false upstream, stream untouched', async () => {
    const sent = `{"model":"${MODEL}","stream":true,"store":true,"input":"hi"}`;
    const before = upstream.requests.length;
    const res = await post(gw, '/v1/responses', sent);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assertSameBytes(onlyNewRequest(upstream, before).raw, `{"model":"${MODEL}","stream":true,"store":false,"input":"hi"}`, 'the upstream body');
  });

  test('the SDK with store: true: the upstream gets store:false', async () => {
    const before = upstream.requests.length;
    const res = await client.responses.create({ model: MODEL, input: 'hi', store: true });
    assert.equal(res.status, 'completed');
    const got = onlyNewRequest(upstream, before);
    assert.equal(got.body['store'], false);
    assert.deepEqual({ ...got.body, store: true }, { model: MODEL, input: 'hi', store: true });
  });

  test('/compact bodies go up unchanged: no store is added', async () => {
    const sent = `{ "model": "${MODEL}", "input": [{"role":"user","content":"fix the build"},{"type":"compaction","encrypted_content":"gAAAAB-old=="}],\n "instructions": "be brief", "tools": [], "parallel_tool_calls": true, "reasoning": {"effort":"high"}, "prompt_cache_key": "thread-c", "text": {"verbosity":"low"}, "x": 12345678901234567890 }`;
    const before = upstream.requests.length;
    const res = await post(gw, '/v1/responses/compact', sent);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const got = onlyNewRequest(upstream, before);
    assert.equal(got.path, '/v1/responses/compact');
    assertSameBytes(got.raw, sent, 'the upstream /compact body');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 3. drop_params

describe('headers', () => {
  test("Codex's session headers and beta flags reach the upstream; the caller's key, org and project do not", async () => {
    const before = upstream.requests.length;
    const res = await post(gw, '/v1/responses', JSON.stringify({ model: MODEL, input: 'hi', store: false }), {
      'session-id': 'sess-1',
      'thread-id': 'thread-1',
      'x-codex-beta-features': 'remote_compaction_v2',
      'openai-beta': 'responses=experimental',
      'openai-organization': 'org-caller',
      'openai-project': 'proj-caller',
    });
    assert.equal(res.status, 200, await res.text());
    const got = onlyNewRequest(upstream, before);
    assert.equal(got.headers['session-id'], 'sess-1');
    assert.equal(got.headers['thread-id'], 'thread-1');
    assert.equal(got.headers['x-codex-beta-features'], 'remote_compaction_v2');
    assert.equal(got.headers['openai-beta'], 'responses=experimental');
    assert.equal(got.headers['openai-organization'], undefined);
    assert.equal(got.headers['openai-project'], undefined);
    assert.equal(got.headers['authorization'], 'Bearer sk-upstream-a');
    assert.ok(!JSON.stringify(got.headers).includes(TEST_KEY), 'the caller key never reaches the upstream');
  });
});

describe('drop_params', () => {
  const pairs: readonly (readonly [string, string])[] = [
    ['model', `"${MODEL}"`],
    ['client_metadata', '{"x-codex-installation-id":"inst-1","n":12345678901234567890}'],
    ['input', '[{"role":"user","content":"caf\\u00e9"}]'],
    ['store', 'false'],
    ['prompt_cache_key', '"thread-drop"'],
    ['service_tier', '"priority"'],
  ];
  const SEP = ',\n  ';
  const join = (kept: readonly (readonly [string, string])[]): string => `{\n  ${kept.map(([k, v]) => `"${k}": ${v}`).join(SEP)}\n}`;
  const dropped = new Set(['client_metadata', 'service_tier']);

  test('a channel with drop_params: client_metadata and service_tier never reach the upstream, all else byte for byte', async () => {
    const before = dropUpstream.requests.length;
    const res = await post(gwDrop, '/v1/responses', join(pairs));
    assert.equal(res.status, 200, await res.clone().text());
    const json = (await res.json()) as { output: unknown[] };
    assert.equal(json.output.length, 2);
    const got = onlyNewRequest(dropUpstream, before);
    assertSameBytes(got.raw, join(pairs.filter(([k]) => !dropped.has(k))), 'the upstream body');
    assert.equal('client_metadata' in got.body, false);
    assert.equal('service_tier' in got.body, false);
  });

  test('drop_params together with the store edit: dropped fields first and last, store:true made false', async () => {
    const edited: readonly (readonly [string, string])[] = [
      ['service_tier', '"flex"'],
      ['model', `"${MODEL}"`],
      ['store', 'true'],
      ['input', '"hi"'],
      ['client_metadata', '{"a":1}'],
    ];
    const before = dropUpstream.requests.length;
    const res = await post(gwDrop, '/v1/responses', join(edited));
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const expected = join([
      ['model', `"${MODEL}"`],
      ['store', 'false'],
      ['input', '"hi"'],
    ]);
    assertSameBytes(onlyNewRequest(dropUpstream, before).raw, expected, 'the upstream body');
  });

  test('drop_params apply to /compact too (Codex sends service_tier there)', async () => {
    const sent: readonly (readonly [string, string])[] = [
      ['model', `"${MODEL}"`],
      ['input', '[{"role":"user","content":"x"}]'],
      ['service_tier', '"priority"'],
      ['prompt_cache_key', '"thread-drop-c"'],
    ];
    const before = dropUpstream.requests.length;
    const res = await post(gwDrop, '/v1/responses/compact', join(sent));
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const got = onlyNewRequest(dropUpstream, before);
    assert.equal(got.path, '/v1/responses/compact');
    assertSameBytes(got.raw, join(sent.filter(([k]) => !dropped.has(k))), 'the upstream /compact body');
  });

  test('a channel without drop_params forwards client_metadata and service_tier', async () => {
    const before = upstream.requests.length;
    const res = await post(gw, '/v1/responses', join(pairs));
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assertSameBytes(onlyNewRequest(upstream, before).raw, join(pairs), 'the upstream body');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 4. Every item and tool type passes unchanged

describe('item and tool types', () => {
  test('a Codex-style streamed request (store:false) reaches the upstream byte for byte', async () => {
    upstream.reply = () => ({
      kind: 'stream',
      output: [{ type: 'compaction', id: 'cmp_v2', encryptedContent: 'gAAAAB-compaction-v2==' }],
    });
    const sent = codexBody('false');
    const parsed = JSON.parse(sent) as { input: { type: string }[]; tools: { type: string }[] };
    assert.deepEqual(
      parsed.input.map((i) => i.type),
      ['message', 'message', 'compaction', 'reasoning', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'additional_tools', 'message', 'compaction_trigger'],
    );
    assert.deepEqual(
      parsed.tools.map((t) => t.type),
      ['function', 'namespace', 'custom', 'web_search'],
    );
    const before = upstream.requests.length;
    const res = await post(gw, '/v1/responses', sent, { 'x-codex-beta-features': 'remote_compaction_v2' });
    assert.equal(res.status, 200);
    const received = Buffer.from(await res.arrayBuffer());
    assertSameBytes(onlyNewRequest(upstream, before).raw, sent, 'the upstream body');
    // Compaction v2: the compaction item streams back (added and done) unchanged.
    assertSameBytes(received, upstream.lastStreamBytes, 'the SSE body');
    const done = parseSse(received.toString('utf8')).filter((f) => f.event === 'response.output_item.done');
    assert.deepEqual(
      done.map((f) => f.data['item']),
      [{ id: 'cmp_v2', type: 'compaction', encrypted_content: 'gAAAAB-compaction-v2==' }],
    );
  });

  test('the same request with store:true and without store: only store differs', async () => {
    let before = upstream.requests.length;
    let res = await post(gw, '/v1/responses', codexBody('true'));
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assertSameBytes(onlyNewRequest(upstream, before).raw, codexBody('false'), 'the upstream body (store:true sent)');

    before = upstream.requests.length;
    const sent = codexBody(null);
    res = await post(gw, '/v1/responses', sent);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const got = onlyNewRequest(upstream, before);
    assert.equal(got.body['store'], false);
    assert.equal(withoutInsertedStore(got.raw.toString('utf8')), sent);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 5. Bytes back to the client

describe('response bytes', () => {
  test('a stream with reasoning, function_call and message items: the client gets exactly the upstream SSE bytes', async () => {
    upstream.reply = () => ({ kind: 'stream', output: REASONING_TOOL_TEXT });
    const res = await post(gw, '/v1/responses', JSON.stringify({ model: MODEL, stream: true, store: false, input: 'weather?' }), {
      accept: 'application/json',
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(res.headers.get('content-length'), null);
    const received = Buffer.from(await res.arrayBuffer());
    assert.ok(upstream.lastStreamBytes.length > 0);
    assertSameBytes(received, upstream.lastStreamBytes, 'the SSE body');
    const text = received.toString('utf8');
    assert.ok(!text.includes('[DONE]'));
    const frames = parseSse(text);
    assert.deepEqual(
      frames.map((f) => f.data['sequence_number']),
      frames.map((_, i) => i),
    );
    for (const frame of frames) assert.equal(frame.event, frame.data['type'], 'every frame names its type in event:');
    for (const type of [
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
    ]) {
      assert.ok(frames.some((f) => f.event === type), type);
    }
    assert.equal(frames[frames.length - 1]?.event, 'response.completed');
  });

  test('a whole response: the client gets exactly the upstream body', async () => {
    upstream.reply = () => ({ kind: 'response', output: REASONING_TOOL_TEXT });
    const res = await post(gw, '/v1/responses', JSON.stringify({ model: MODEL, input: 'weather?' }));
    assert.equal(res.status, 200);
    assertSameBytes(Buffer.from(await res.arrayBuffer()), upstream.lastBodyBytes, 'the response body');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 6. Usage records

describe('usage', () => {
  test('a whole response is recorded with input, cached, output and reasoning tokens', async () => {
    const usage: ResponsesUsage = { input: 4321, cached: 4096, output: 211, reasoning: 150 };
    upstream.reply = () => ({ kind: 'response', usage });
    const { response } = await client.responses.create({ model: MODEL, input: 'count me' }).withResponse();
    const id = response.headers.get('x-request-id');
    assert.ok(id);
    const record = await recordFor(gw, id);
    assert.deepEqual(tokensOf(record), expectedTokens(usage));
    assert.equal(record.route, '/v1/responses');
    assert.equal(record.stream, false);
    assert.equal(record.status, 200);
    assert.equal(record.channel, 'a');
    assert.equal(record.model, MODEL);
    assert.equal(record.keyName, 'tester');
    assert.equal(record.errorCode, null);
  });

  test('a stream is recorded with the usage of response.completed', async () => {
    const usage: ResponsesUsage = { input: 12000, cached: 11000, output: 345, reasoning: 99 };
    upstream.reply = () => ({ kind: 'stream', output: REASONING_TOOL_TEXT, usage });
    const { data: stream, response } = await client.responses.create({ model: MODEL, input: 'stream me', stream: true }).withResponse();
    let completed = false;
    for await (const event of stream) if (event.type === 'response.completed') completed = true;
    assert.ok(completed);
    const id = response.headers.get('x-request-id');
    assert.ok(id);
    const record = await recordFor(gw, id);
    assert.deepEqual(tokensOf(record), expectedTokens(usage));
    assert.equal(record.route, '/v1/responses');
    assert.equal(record.stream, true);
    assert.equal(record.status, 200);
    assert.equal(record.aborted, false);
    assert.ok(record.ttftMs !== null && record.ttftMs >= 0);
  });

  test('a /compact call is recorded under its route with its usage', async () => {
    const usage: ResponsesUsage = { input: 52000, cached: 48000, output: 900, reasoning: 600 };
    upstream.reply = () => ({ kind: 'response', usage });
    const { response } = await client.responses.compact({ model: MODEL, input: 'compact me' }).withResponse();
    const id = response.headers.get('x-request-id');
    assert.ok(id);
    const record = await recordFor(gw, id);
    assert.deepEqual(tokensOf(record), expectedTokens(usage));
    assert.equal(record.route, '/v1/responses/compact');
    assert.equal(record.stream, false);
    assert.equal(record.status, 200);
    assert.equal(record.channel, 'a');
  });

  test('the newest record comes first', async () => {
    const res = await post(gw, '/v1/responses', JSON.stringify({ model: MODEL, input: 'latest' }));
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const id = res.headers.get('x-request-id');
    assert.ok(id);
    await recordFor(gw, id);
    assert.equal((await gw.usage())[0]?.requestId, id);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 7. Affinity by prompt_cache_key over three equal channels

describe('affinity', () => {
  /** Which fake served each call, in order. */
  const served: { channel: string; path: string; key: unknown }[] = [];

  beforeEach(() => {
    served.length = 0;
    for (const fake of trio) {
      fake.reply = (req) => {
        served.push({ channel: fake.name, path: req.path, key: req.body['prompt_cache_key'] });
        return defaultResponsesReply(req);
      };
    }
  });

  async function call(path: string, key: string, stream = false): Promise<string> {
    const count = served.length;
    const res = await post(gwTrio, path, JSON.stringify({ model: MODEL, input: [{ role: 'user', content: 'hi' }], prompt_cache_key: key, ...(stream ? { stream: true } : {}) }));
    assert.equal(res.status, 200, await res.clone().text());
    await res.arrayBuffer();
    assert.equal(served.length, count + 1);
    const last = served[served.length - 1];
    assert.ok(last);
    assert.equal(last.key, key);
    return last.channel;
  }

  // Without affinity each request draws a random order of the three channels: 30 on one by luck is 3 * (1/3)^30.
  test('the same prompt_cache_key over 30 requests (whole and streamed) sticks to one channel', async () => {
    const channels = new Set<string>();
    for (let i = 0; i < 30; i++) channels.add(await call('/v1/responses', 'thread-sticky-0001', i % 2 === 1));
    assert.equal(channels.size, 1, `served by ${[...channels].join(', ')}`);
  });

  // All 45 on at most two of three channels by luck: 3 * (2/3)^45, about 3e-8.
  test('different prompt_cache_keys spread over the three channels', async () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 45; i++) {
      const channel = await call('/v1/responses', `thread-spread-${i}`);
      counts.set(channel, (counts.get(channel) ?? 0) + 1);
    }
    assert.deepEqual([...counts.keys()].sort(), ['t1', 't2', 't3'], JSON.stringify([...counts]));
  });

  // The compaction item (and reasoning encrypted_content) is readable only by the upstream account that wrote it:
  // /compact for a conversation must go where its /responses calls go, and the next /responses with the compaction
  // item must go there too. 10 conversations all matching by luck: (1/3)^10.
  test('/v1/responses/compact follows the conversation bound on /v1/responses (same prompt_cache_key)', async () => {
    const mismatches: string[] = [];
    for (let i = 0; i < 10; i++) {
      const key = `thread-compact-${i}`;
      const first = await call('/v1/responses', key, true);
      const compacted = await call('/v1/responses/compact', key);
      const next = await call('/v1/responses', key, true);
      if (compacted !== first || next !== first) mismatches.push(`${key}: responses ${first}, compact ${compacted}, next ${next}`);
    }
    assert.deepEqual(mismatches, [], 'a conversation’s /compact went to another channel than its /responses calls');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 8. Errors

describe('errors', () => {
  test('401: a bad key, in OpenAI shape, nothing sent upstream', async () => {
    const before = upstream.requests.length;
    const res = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-not-a-key-0123456789', 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, input: 'hi' }),
    });
    const error = await openAIError(res, 401);
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, 'invalid_api_key');
    assert.equal(error.param, null);
    const bad = new OpenAI({ apiKey: 'sk-not-a-key-0123456789', baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await assert.rejects(bad.responses.create({ model: MODEL, input: 'hi' }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.AuthenticationError);
      assert.equal(err.status, 401);
      assert.equal(err.code, 'invalid_api_key');
      return true;
    });
    await assert.rejects(bad.responses.compact({ model: MODEL, input: 'hi' }), OpenAI.AuthenticationError);
    assert.equal(upstream.requests.length, before);
  });

  test('404: an unknown model, in OpenAI shape', async () => {
    const before = upstream.requests.length;
    for (const path of ['/v1/responses', '/v1/responses/compact']) {
      const error = await openAIError(await post(gw, path, JSON.stringify({ model: 'o9-unknown', input: 'hi' })), 404);
      assert.equal(error.type, 'invalid_request_error');
      assert.equal(error.code, 'model_not_found');
      assert.equal(error.param, 'model');
      assert.match(error.message, /o9-unknown/);
    }
    await assert.rejects(client.responses.create({ model: 'o9-unknown', input: 'hi' }), OpenAI.NotFoundError);
    assert.equal(upstream.requests.length, before);
  });

  test('400: invalid JSON and a missing model, in OpenAI shape', async () => {
    const before = upstream.requests.length;
    for (const path of ['/v1/responses', '/v1/responses/compact']) {
      const invalid = await openAIError(await post(gw, path, `{"model":"${MODEL}","input":`), 400);
      assert.equal(invalid.type, 'invalid_request_error');
      assert.equal(invalid.code, 'invalid_json');
      assert.equal(invalid.param, null);

      const missing = await openAIError(await post(gw, path, '{"input":"hi","store":false}'), 400);
      assert.equal(missing.type, 'invalid_request_error');
      assert.equal(missing.code, 'missing_required_parameter');
      assert.equal(missing.param, 'model');
      assert.match(missing.message, /model/);
    }
    assert.equal(upstream.requests.length, before);
  });

  test('an upstream 500 becomes a 502 in OpenAI shape, without the upstream’s words (whole and streamed requests)', async () => {
    upstream.reply = () => ({ kind: 'status', status: 500 });
    for (const stream of [false, true]) {
      const error = await openAIError(await post(gw, '/v1/responses', JSON.stringify({ model: MODEL, input: 'hi', stream })), 502);
      assert.equal(error.type, 'server_error');
      assert.equal(error.code, 'upstream_error');
      assert.ok(!error.message.includes('fake upstream-a'), error.message);
    }
    const compact = await openAIError(await post(gw, '/v1/responses/compact', JSON.stringify({ model: MODEL, input: 'hi' })), 502);
    assert.equal(compact.code, 'upstream_error');
    await assert.rejects(client.responses.create({ model: MODEL, input: 'hi' }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError);
      assert.equal(err.status, 502);
      return true;
    });
  });

  test('an upstream 400 in OpenAI shape passes through unchanged', async () => {
    const body = { error: { message: "Invalid 'input[3].encrypted_content': could not decrypt.", type: 'invalid_request_error', param: 'input[3].encrypted_content', code: 'invalid_encrypted_content' } };
    upstream.reply = () => ({ kind: 'status', status: 400, body });
    const res = await post(gw, '/v1/responses', JSON.stringify({ model: MODEL, input: 'hi' }));
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), body);
  });

  test('a stream that breaks after it began ends with an error frame and a response.failed frame, no [DONE]', async () => {
    upstream.reply = () => ({ kind: 'stream', output: [{ type: 'message', id: 'msg_broken', text: 'a long answer that never ends' }], breakAfter: 6 });
    const res = await post(gw, '/v1/responses', JSON.stringify({ model: MODEL, input: 'hi', stream: true }));
    assert.equal(res.status, 200);
    const id = res.headers.get('x-request-id');
    assert.ok(id);
    const received = Buffer.from(await withDeadline(res.arrayBuffer(), WAIT_MS, 'the broken stream ended'));
    const sent = upstream.lastStreamBytes;
    assert.ok(sent.length > 0);
    assertSameBytes(received.subarray(0, sent.length), sent, 'the frames before the break');
    const text = received.toString('utf8');
    assert.ok(!text.includes('[DONE]'));
    assert.ok(!text.includes('response.completed'));
    const tail = parseSse(received.subarray(sent.length).toString('utf8'));
    assert.deepEqual(
      tail.map((f) => f.event),
      ['error', 'response.failed'],
    );
    const message = 'The upstream stream broke off before it completed.';
    const [error, failed] = tail;
    assert.ok(error && failed);
    assert.deepEqual(withoutSequence(error.data), { type: 'error', code: 'server_error', message, param: null });
    assert.deepEqual(withoutSequence(failed.data), {
      type: 'response.failed',
      response: { object: 'response', status: 'failed', error: { code: 'server_error', message }, output: [], usage: null },
    });
    const record = await recordFor(gw, id);
    assert.equal(record.status, 200);
    assert.equal(record.errorCode, 'GW_ERR_UPSTREAM_STREAM_BROKEN');
    assert.equal(record.stream, true);
  });

  test('the SDK sees the error and response.failed events of a broken stream as its last two events', async () => {
    upstream.reply = () => ({ kind: 'stream', output: [{ type: 'message', id: 'msg_broken', text: 'a long answer that never ends' }], breakAfter: 6 });
    const stream = await client.responses.create({ model: MODEL, input: 'hi', stream: true });
    const types: string[] = [];
    let failedCode: string | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.failed') failedCode = event.response.error?.code;
    }
    assert.deepEqual(types.slice(-2), ['error', 'response.failed']);
    assert.equal(failedCode, 'server_error');
  });

  test('GET /v1/responses and POST /responses answer 404 with the base-URL hint', async () => {
    const get = await openAIError(await fetch(`${gw.url}/v1/responses`, { headers: { authorization: `Bearer ${TEST_KEY}` } }), 404);
    assert.equal(get.code, 'unknown_url');
    assert.match(get.message, /GET \/v1\/responses/);
    assert.match(get.message, /http:\/\/HOST:PORT\/v1\b/);
    // responses.retrieve(id): nothing is stored, and the answer says so.
    const retrieve = await openAIError(await fetch(`${gw.url}/v1/responses/resp_123`, { headers: { authorization: `Bearer ${TEST_KEY}` } }), 404);
    assert.match(retrieve.message, /stores no responses/);

    for (const path of ['/responses', '/responses/compact']) {
      const error = await openAIError(await post(gw, path, JSON.stringify({ model: MODEL, input: 'hi' })), 404);
      assert.equal(error.code, 'unknown_url');
      assert.ok(error.message.includes(`Did you mean /v1${path}?`), error.message);
      assert.match(error.message, /http:\/\/HOST:PORT\/v1\b/);
    }
    // The SDK with a base URL lacking /v1 gets that hint in its NotFoundError.
    const rootClient = new OpenAI({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
    await assert.rejects(rootClient.responses.create({ model: MODEL, input: 'hi' }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.NotFoundError);
      assert.match(err.message, /\/v1/);
      return true;
    });
  });
});
