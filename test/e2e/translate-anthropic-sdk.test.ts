// Translation end to end: the official @anthropic-ai/sdk (1.x) calling /v1/messages for a model that only a
// Responses-only upstream serves (a channel of type openai with `formats: [openai-responses]` and a model map), so
// every request goes Anthropic -> IR -> Responses and every answer (body, stream, error) comes back the other way.
// Checked on both sides: what the SDK gets (text, thinking with a signature that carries the reasoning proof,
// tool_use, usage with cache counts, errors) and what the fake Responses upstream received (POST /v1/responses,
// the channel key, store:false, items, tools). Also the other direction's refusals: a Responses client sending an
// item or tool that has no Anthropic counterpart to a model served only by an Anthropic channel gets a 400.

import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { UsageRecord } from '../../core/store/store.js';
import { FakeAnthropic, anthropicChannel, defaultAnthropicReply } from '../helpers/fake-anthropic.js';
import {
  DEFAULT_RESPONSES_USAGE,
  FakeResponses,
  defaultResponsesReply,
  type FakeOutputItem,
  type RecordedRequest,
  type ResponsesUsage,
} from '../helpers/fake-responses.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until, withDeadline } from '../helpers/poll.js';
import { splitSse } from '../helpers/sse-text.js';

const WAIT_MS = 5_000;
const POLL = { timeoutMs: WAIT_MS, intervalMs: 20 };

/** The name the client uses; the channel maps it to the upstream's model. */
const MODEL = 'claude-opus-5-5';
const UPSTREAM_MODEL = 'gpt-5.4';
const UPSTREAM_KEY = 'sk-upstream-resp';
/** Served only by the Anthropic channel of the second gateway (claude-*). */
const ANTHROPIC_ONLY_MODEL = 'claude-opus-4-1';

/** The Responses-only upstream and the gateway whose only channel is it. */
let upstream: FakeResponses;
let gw: GatewayUnderTest;
let client: Anthropic;
/** The Anthropic-only upstream and its gateway, for Responses clients. */
let antUpstream: FakeAnthropic;
let gwAnt: GatewayUnderTest;
let responsesClient: OpenAI;

before(async () => {
  upstream = await new FakeResponses('resp-only').start();
  gw = await startGatewayUnderTest(
    configWith(`  - name: resp
    type: openai
    base_url: ${upstream.url}
    keys: ["${UPSTREAM_KEY}"]
    formats: [openai-responses]
    models:
      "${MODEL}": ${UPSTREAM_MODEL}
    cooldown_ms: 0
`),
  );
  // The other credential is null, not undefined, so nothing is read from ANTHROPIC_* in the environment.
  client = new Anthropic({ apiKey: TEST_KEY, authToken: null, baseURL: gw.url, maxRetries: 0 });

  antUpstream = await new FakeAnthropic('ant-only').start();
  gwAnt = await startGatewayUnderTest(configWith(anthropicChannel('ant', antUpstream.url)));
  responsesClient = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gwAnt.url}/v1`, maxRetries: 0 });
});

beforeEach(() => {
  upstream.reply = defaultResponsesReply;
  antUpstream.reply = defaultAnthropicReply;
});

after(async () => {
  for (const g of [gw, gwAnt]) await g?.stop();
  await upstream?.close();
  await antUpstream?.close();
});

// ---------------------------------------------------------------------------------------------------------------
// helpers

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The one upstream request made after `before` requests had been recorded. */
function onlyNewRequest(before: number): RecordedRequest {
  assert.equal(upstream.requests.length, before + 1, 'exactly one upstream request');
  const req = upstream.requests[before];
  assert.ok(req);
  return req;
}

/** What a Responses upstream must get: POST /v1/responses with the channel's Bearer key and nothing of the caller's. */
function assertResponsesCall(got: RecordedRequest): void {
  assert.equal(got.method, 'POST');
  assert.equal(got.path, '/v1/responses');
  assert.equal(got.headers['authorization'], `Bearer ${UPSTREAM_KEY}`);
  assert.equal(got.headers['x-api-key'], undefined, 'no Anthropic key header toward an OpenAI upstream');
  assertCallerKeyAbsent(got.headers);
  assert.equal(got.body['model'], UPSTREAM_MODEL);
  assert.equal(got.body['store'], false, 'the gateway keeps nothing at the provider');
}

function assertCallerKeyAbsent(headers: IncomingHttpHeaders): void {
  for (const [name, value] of Object.entries(headers)) {
    const text = Array.isArray(value) ? value.join(', ') : (value ?? '');
    assert.ok(!text.includes(TEST_KEY), `the caller's key leaked to the upstream in ${name}`);
  }
}

/** The upstream's input as items (a string input is one user message). */
function inputItems(body: Json): Json[] {
  const input = body['input'];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  assert.ok(Array.isArray(input), `input is a string or an array: ${JSON.stringify(input)}`);
  return input.map((item: unknown) => {
    assert.ok(isRecord(item), `an input item is an object: ${JSON.stringify(item)}`);
    return item;
  });
}

/** An item's type; `message` when omitted (the "easy input" form {role, content}). */
function itemType(item: Json): string {
  return typeof item['type'] === 'string' ? item['type'] : 'message';
}

/** The text of a message's content (string, or parts with `text`) or of a function_call_output's output. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  assert.ok(Array.isArray(content), `content is a string or parts: ${JSON.stringify(content)}`);
  return content
    .map((part: unknown) => {
      assert.ok(isRecord(part) && typeof part['text'] === 'string', `a text part: ${JSON.stringify(part)}`);
      return part['text'];
    })
    .join('');
}

function messagesOf(body: Json, role: string): Json[] {
  return inputItems(body).filter((item) => itemType(item) === 'message' && item['role'] === role);
}

/** The system prompt the upstream got: `instructions`, then system and developer message items, in order. */
function systemTexts(body: Json): string[] {
  const texts: string[] = [];
  if (typeof body['instructions'] === 'string') texts.push(body['instructions']);
  for (const item of inputItems(body)) {
    if (itemType(item) === 'message' && (item['role'] === 'system' || item['role'] === 'developer')) texts.push(textOf(item['content']));
  }
  return texts;
}

/** The blocks of an answer as request params, to send back as the assistant turn (what a client does). */
function asParams(content: readonly Anthropic.ContentBlock[]): Anthropic.ContentBlockParam[] {
  return content.map((block): Anthropic.ContentBlockParam => {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: block.text };
      case 'thinking':
        return { type: 'thinking', thinking: block.thinking, signature: block.signature };
      case 'redacted_thinking':
        return { type: 'redacted_thinking', data: block.data };
      case 'tool_use':
        return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
      default:
        return assert.fail(`unexpected block ${JSON.stringify(block)}`);
    }
  });
}

function postMessages(body: Json): Promise<Response> {
  return fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
}

interface ParsedFrame {
  readonly event: string | null;
  readonly data: Json;
}

/** The frames of an SSE body, each with its JSON data parsed. */
function parseSse(text: string): ParsedFrame[] {
  return splitSse(text).map((frame) => {
    assert.ok(frame.data !== null, `a frame without data: ${JSON.stringify(frame)}`);
    const data: unknown = JSON.parse(frame.data);
    assert.ok(isRecord(data), `frame data is an object: ${frame.data}`);
    return { event: frame.event, data };
  });
}

/** Every Anthropic frame is named by `event:` and the name equals data.type (the SDK dispatches on the name). */
function assertNamedFrames(frames: readonly ParsedFrame[]): void {
  for (const frame of frames) assert.equal(frame.event, frame.data['type'], `event name of ${JSON.stringify(frame.data)}`);
}

/** The frames without pings, which may appear anywhere. */
function withoutPings(frames: readonly ParsedFrame[]): ParsedFrame[] {
  return frames.filter((frame) => frame.event !== 'ping');
}

const USAGE_KEYS = ['cache_creation_input_tokens', 'cache_read_input_tokens', 'input_tokens', 'output_tokens'];

function assertUsageShape(usage: unknown, what: string): Json {
  assert.ok(isRecord(usage), `${what}: usage is an object`);
  for (const key of USAGE_KEYS) assert.equal(typeof usage[key], 'number', `${what}: usage.${key} is a number (${JSON.stringify(usage)})`);
  return usage;
}

/** The Anthropic usage the client must see for a Responses usage: input_tokens without cached and cache-write. */
function anthropicUsageFor(u: ResponsesUsage): Json {
  const cached = u.cached ?? 0;
  const cacheWrite = u.cacheWrite ?? 0;
  return {
    input_tokens: u.input - cached - cacheWrite,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cached,
    output_tokens: u.output,
  };
}

function usageFields(usage: Anthropic.Usage | Json): Json {
  const u = usage as Json;
  return Object.fromEntries(USAGE_KEYS.map((key) => [key, u[key]]));
}

function recordFor(id: string): Promise<UsageRecord> {
  return until(`a usage record for ${id}`, async () => (await gw.usage()).find((r) => r.requestId === id), POLL);
}

function textMessage(id: string, text: string): FakeOutputItem {
  return { type: 'message', id, text };
}

const WEATHER_TOOL: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'array', items: { type: 'integer' } } }, required: ['city'] },
};
const TIME_TOOL: Anthropic.Tool = {
  name: 'get_time',
  description: 'The local time of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

// ---------------------------------------------------------------------------------------------------------------
// 1. Text, whole and streamed

describe('text', () => {
  test('messages.create: the upstream text comes back as an Anthropic message; the upstream got a Responses request', async () => {
    const usage: ResponsesUsage = { input: 50, output: 7 };
    upstream.reply = () => ({ kind: 'response', output: [textMessage('msg_t1', 'Bonjour — ça va ✓')], usage });
    const before = upstream.requests.length;
    const message = await client.messages.create({ model: MODEL, max_tokens: 321, messages: [{ role: 'user', content: 'say hi in French' }] });

    assert.equal(message.type, 'message');
    assert.equal(message.role, 'assistant');
    assert.match(message.id, /^msg_/);
    assert.equal(message.model, UPSTREAM_MODEL, "the upstream's reported model");
    assert.equal(message.content.length, 1);
    const block = message.content[0];
    assert.ok(block?.type === 'text', JSON.stringify(message.content));
    assert.equal(block.text, 'Bonjour — ça va ✓');
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.stop_sequence, null);
    assert.deepEqual(usageFields(message.usage), anthropicUsageFor(usage));

    const got = onlyNewRequest(before);
    assertResponsesCall(got);
    assert.notEqual(got.body['stream'], true, 'a whole answer was asked');
    assert.equal(got.body['max_output_tokens'], 321);
    const users = messagesOf(got.body, 'user');
    assert.equal(users.length, 1);
    assert.equal(textOf(users[0]?.['content']), 'say hi in French');
  });

  test('messages.stream: finalMessage() and the text events carry the streamed text; the upstream got stream:true', async () => {
    const usage: ResponsesUsage = { input: 64, output: 12, cached: 32 };
    upstream.reply = () => ({ kind: 'stream', output: [textMessage('msg_s1', 'Streaming à travers la passerelle ✓')], usage });
    const before = upstream.requests.length;
    const stream = client.messages.stream({ model: MODEL, max_tokens: 200, messages: [{ role: 'user', content: 'stream please' }] });
    let deltas = '';
    stream.on('text', (text) => {
      deltas += text;
    });
    const message = await withDeadline(stream.finalMessage(), WAIT_MS, 'the stream finished');
    assert.equal(message.content.length, 1);
    const block = message.content[0];
    assert.ok(block?.type === 'text', JSON.stringify(message.content));
    assert.equal(block.text, 'Streaming à travers la passerelle ✓');
    assert.equal(deltas, 'Streaming à travers la passerelle ✓');
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.model, UPSTREAM_MODEL);
    assert.deepEqual(usageFields(message.usage), anthropicUsageFor(usage));

    const got = onlyNewRequest(before);
    assertResponsesCall(got);
    assert.equal(got.body['stream'], true);
    assert.equal(got.body['max_output_tokens'], 200);
  });

  test('the stream bytes: event: lines, message_start with usage, blocks in order, message_delta with the final usage, message_stop', async () => {
    const usage: ResponsesUsage = { input: 900, output: 120, cached: 768, reasoning: 64 };
    upstream.reply = () => ({
      kind: 'stream',
      output: [
        { type: 'reasoning', id: 'rs_s1', summary: ['Short thought.'], encryptedContent: 'gAAAAB-stream-proof==' },
        textMessage('msg_s2', 'Done.'),
      ],
      usage,
    });
    const res = await postMessages({ model: MODEL, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'go' }] });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.ok(!text.includes('[DONE]'), 'no [DONE] in an Anthropic stream');
    const frames = parseSse(text);
    assertNamedFrames(frames);
    const events = withoutPings(frames);

    // Consecutive deltas collapsed: one thinking block (index 0), one text block (index 1), then the ending.
    const shape = events
      .map((f) => (f.event?.startsWith('content_block') === true ? `${f.event}:${String(f.data['index'])}` : String(f.event)))
      .filter((name, i, all) => i === 0 || name !== all[i - 1]);
    assert.deepEqual(shape, [
      'message_start',
      'content_block_start:0',
      'content_block_delta:0',
      'content_block_stop:0',
      'content_block_start:1',
      'content_block_delta:1',
      'content_block_stop:1',
      'message_delta',
      'message_stop',
    ]);

    const start = events[0]?.data['message'];
    assert.ok(isRecord(start));
    assert.match(String(start['id']), /^msg_/);
    assert.equal(start['type'], 'message');
    assert.equal(start['role'], 'assistant');
    assert.equal(start['model'], UPSTREAM_MODEL);
    assert.deepEqual(start['content'], []);
    assert.equal(start['stop_reason'], null);
    assertUsageShape(start['usage'], 'message_start');

    // The reasoning item: a thinking block, its summary as thinking_delta, a non-empty signature_delta before its stop.
    assert.deepEqual(events[1]?.data, { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
    const thinkingDeltas = events.filter((f) => f.event === 'content_block_delta' && f.data['index'] === 0).map((f) => f.data['delta']);
    const thinking = thinkingDeltas.filter((d) => isRecord(d) && d['type'] === 'thinking_delta').map((d) => (d as Json)['thinking']);
    assert.equal(thinking.join(''), 'Short thought.');
    const signatures = thinkingDeltas.filter((d) => isRecord(d) && d['type'] === 'signature_delta');
    assert.equal(signatures.length, 1, 'one signature_delta');
    assert.deepEqual(thinkingDeltas.at(-1), signatures[0], 'the signature comes last in its block');
    const signature = (signatures[0] as Json)['signature'];
    assert.ok(typeof signature === 'string' && signature.length > 0, 'a non-empty signature');

    const textStart = events.find((f) => f.event === 'content_block_start' && f.data['index'] === 1);
    assert.deepEqual(textStart?.data['content_block'], { type: 'text', text: '' });
    const textDeltas = events.filter((f) => f.event === 'content_block_delta' && f.data['index'] === 1).map((f) => f.data['delta']);
    assert.ok(textDeltas.every((d) => isRecord(d) && d['type'] === 'text_delta'));
    assert.equal(textDeltas.map((d) => (d as Json)['text']).join(''), 'Done.');

    const delta = events.at(-2)?.data;
    assert.ok(delta);
    assert.deepEqual(delta['delta'], { stop_reason: 'end_turn', stop_sequence: null });
    assert.deepEqual(usageFields(assertUsageShape(delta['usage'], 'message_delta')), anthropicUsageFor(usage));
    assert.deepEqual(events.at(-1)?.data, { type: 'message_stop' });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 2. Thinking: the reasoning item's proof travels inside the thinking signature and comes back intact

const REASONING: FakeOutputItem = {
  type: 'reasoning',
  id: 'rs_round1',
  summary: ['First I check the units.', 'Then I answer — vite ✓'],
  encryptedContent: 'gAAAAABo-original/opaque+reasoning==',
};
const REASONING_TEXT = 'First I check the units.\n\nThen I answer — vite ✓';

/** The upstream's view of a second turn: the reasoning item with its original id and encrypted_content. */
function assertReasoningReplayed(body: Json): void {
  const items = inputItems(body);
  const reasoning = items.filter((item) => itemType(item) === 'reasoning');
  assert.equal(reasoning.length, 1, `one reasoning item in ${JSON.stringify(items)}`);
  const item = reasoning[0];
  assert.ok(item);
  assert.equal(item['id'], 'rs_round1', 'the original reasoning item id');
  assert.equal(item['encrypted_content'], 'gAAAAABo-original/opaque+reasoning==', 'the original encrypted_content, unwrapped');
  assert.ok(Array.isArray(item['summary']), 'a summary array');
  assert.equal(
    (item['summary'] as unknown[]).map((part) => (isRecord(part) ? part['text'] : '')).join('\n\n'),
    REASONING_TEXT,
    'the summary text',
  );
  // In order: the first user turn, the reasoning, the assistant's text, the new user turn.
  const order = items.map((i) => (itemType(i) === 'message' ? `${String(i['role'])}:${textOf(i['content'])}` : itemType(i)));
  const at = (entry: string): number => order.indexOf(entry);
  assert.ok(at('user:How warm is 20 °C?') >= 0, JSON.stringify(order));
  assert.ok(at('reasoning') > at('user:How warm is 20 °C?'), JSON.stringify(order));
  assert.ok(at('assistant:Mild: 68 °F.') > at('reasoning'), JSON.stringify(order));
  assert.ok(at('user:And 30 °C?') > at('assistant:Mild: 68 °F.'), JSON.stringify(order));
}

describe('thinking', () => {
  test('messages.create: a reasoning item becomes a thinking block whose signature brings the original reasoning item back', async () => {
    upstream.reply = () => ({ kind: 'response', output: [REASONING, textMessage('msg_r1', 'Mild: 68 °F.')] });
    const first: Anthropic.MessageParam = { role: 'user', content: 'How warm is 20 °C?' };
    const message = await client.messages.create({
      model: MODEL,
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [first],
    });
    assert.deepEqual(
      message.content.map((b) => b.type),
      ['thinking', 'text'],
    );
    const thinking = message.content[0];
    assert.ok(thinking?.type === 'thinking');
    assert.equal(thinking.thinking, REASONING_TEXT);
    assert.ok(thinking.signature.length > 0, 'a signature to send back');
    const text = message.content[1];
    assert.ok(text?.type === 'text');
    assert.equal(text.text, 'Mild: 68 °F.');

    upstream.reply = () => ({ kind: 'response', output: [textMessage('msg_r2', 'Hot: 86 °F.')] });
    const before = upstream.requests.length;
    const second = await client.messages.create({
      model: MODEL,
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [first, { role: 'assistant', content: asParams(message.content) }, { role: 'user', content: 'And 30 °C?' }],
    });
    const answer = second.content.find((b) => b.type === 'text');
    assert.ok(answer?.type === 'text');
    assert.equal(answer.text, 'Hot: 86 °F.');
    const got = onlyNewRequest(before);
    assertResponsesCall(got);
    assertReasoningReplayed(got.body);
  });

  test('messages.stream: the streamed signature brings the original reasoning item back too', async () => {
    upstream.reply = () => ({ kind: 'stream', output: [REASONING, textMessage('msg_r3', 'Mild: 68 °F.')] });
    const first: Anthropic.MessageParam = { role: 'user', content: 'How warm is 20 °C?' };
    const params = { model: MODEL, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } } as const;
    const stream = client.messages.stream({ ...params, messages: [first] });
    let thinkingDeltas = '';
    stream.on('thinking', (delta) => {
      thinkingDeltas += delta;
    });
    const message = await withDeadline(stream.finalMessage(), WAIT_MS, 'the stream finished');
    assert.equal(thinkingDeltas, REASONING_TEXT);
    const thinking = message.content[0];
    assert.ok(thinking?.type === 'thinking', JSON.stringify(message.content));
    assert.equal(thinking.thinking, REASONING_TEXT);
    assert.ok(thinking.signature.length > 0, 'a signature to send back');

    upstream.reply = () => ({ kind: 'stream', output: [textMessage('msg_r4', 'Hot: 86 °F.')] });
    const before = upstream.requests.length;
    const next = client.messages.stream({
      ...params,
      messages: [first, { role: 'assistant', content: asParams(message.content) }, { role: 'user', content: 'And 30 °C?' }],
    });
    const answer = await withDeadline(next.finalText(), WAIT_MS, 'the second stream finished');
    assert.equal(answer, 'Hot: 86 °F.');
    const got = onlyNewRequest(before);
    assertResponsesCall(got);
    assert.equal(got.body['stream'], true);
    assertReasoningReplayed(got.body);
  });

  test('thinking enabled: the upstream is asked for reasoning (effort from the budget, summaries) and its encrypted content', async () => {
    upstream.reply = () => ({ kind: 'response', output: [REASONING, textMessage('msg_r5', 'ok')] });
    const before = upstream.requests.length;
    await client.messages.create({
      model: MODEL,
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [{ role: 'user', content: 'think' }],
    });
    const got = onlyNewRequest(before);
    assert.deepEqual(got.body['reasoning'], { effort: 'low', summary: 'auto' }, 'budget 2048 -> effort low, summary auto');
    // With store:false the API returns encrypted_content only when asked; without it nothing can be replayed.
    const include = got.body['include'];
    assert.ok(
      Array.isArray(include) && include.includes('reasoning.encrypted_content'),
      `include names reasoning.encrypted_content: ${JSON.stringify(include)}`,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 3. Tools

describe('tools', () => {
  test('a function_call comes back as tool_use with parsed input; the tool_result turn reaches the upstream as function_call + function_call_output', async () => {
    upstream.reply = () => ({
      kind: 'response',
      output: [{ type: 'function_call', id: 'fc_w1', callId: 'call_w1', name: 'get_weather', arguments: '{"city":"Paris","days":[1,2]}' }],
    });
    const before = upstream.requests.length;
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const message = await client.messages.create({ model: MODEL, max_tokens: 512, tools: [WEATHER_TOOL], messages: [question] });
    assert.equal(message.stop_reason, 'tool_use');
    assert.equal(message.content.length, 1);
    const call = message.content[0];
    assert.ok(call?.type === 'tool_use', JSON.stringify(message.content));
    assert.equal(call.id, 'call_w1', "the upstream's call id");
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(call.input, { city: 'Paris', days: [1, 2] });

    const got = onlyNewRequest(before);
    assertResponsesCall(got);
    const tools = got.body['tools'];
    assert.ok(Array.isArray(tools) && tools.length === 1, JSON.stringify(tools));
    const tool = tools[0] as Json;
    assert.equal(tool['type'], 'function');
    assert.equal(tool['name'], 'get_weather');
    assert.equal(tool['description'], 'The weather of a city');
    assert.deepEqual(tool['parameters'], WEATHER_TOOL.input_schema);

    upstream.reply = () => ({ kind: 'response', output: [textMessage('msg_w2', 'Sunny, 18 °C.')] });
    const before2 = upstream.requests.length;
    const answer = await client.messages.create({
      model: MODEL,
      max_tokens: 512,
      tools: [WEATHER_TOOL],
      messages: [
        question,
        { role: 'assistant', content: asParams(message.content) },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_w1', content: '18 °C, sunny' }] },
      ],
    });
    assert.equal(answer.stop_reason, 'end_turn');
    const text = answer.content[0];
    assert.ok(text?.type === 'text');
    assert.equal(text.text, 'Sunny, 18 °C.');

    const items = inputItems(onlyNewRequest(before2).body);
    const callIndex = items.findIndex((item) => itemType(item) === 'function_call');
    const outputIndex = items.findIndex((item) => itemType(item) === 'function_call_output');
    assert.ok(callIndex >= 0, `a function_call item in ${JSON.stringify(items)}`);
    assert.ok(outputIndex > callIndex, 'the output follows its call');
    const fc = items[callIndex] as Json;
    assert.equal(fc['call_id'], 'call_w1');
    assert.equal(fc['name'], 'get_weather');
    assert.equal(typeof fc['arguments'], 'string', 'arguments as JSON text');
    assert.deepEqual(JSON.parse(String(fc['arguments'])), { city: 'Paris', days: [1, 2] });
    const out = items[outputIndex] as Json;
    assert.equal(out['call_id'], 'call_w1');
    assert.equal(textOf(out['output']), '18 °C, sunny');
    assert.equal(items.filter((item) => itemType(item) === 'function_call').length, 1);
    assert.equal(items.filter((item) => itemType(item) === 'function_call_output').length, 1);
  });

  test('two parallel function calls, streamed, become two tool_use blocks with their inputs', async () => {
    upstream.reply = () => ({
      kind: 'stream',
      output: [
        { type: 'function_call', id: 'fc_p1', callId: 'call_p1', name: 'get_weather', arguments: '{"city":"Lyon","days":[3]}' },
        { type: 'function_call', id: 'fc_p2', callId: 'call_p2', name: 'get_time', arguments: '{"city":"Tōkyō"}' },
      ],
    });
    const before = upstream.requests.length;
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 512,
      tools: [WEATHER_TOOL, TIME_TOOL],
      messages: [{ role: 'user', content: 'Weather in Lyon and time in Tokyo?' }],
    });
    const events: Anthropic.MessageStreamEvent[] = [];
    stream.on('streamEvent', (event) => {
      events.push(event);
    });
    const message = await withDeadline(stream.finalMessage(), WAIT_MS, 'the stream finished');
    assert.equal(message.stop_reason, 'tool_use');
    assert.deepEqual(
      message.content.map((b) => (b.type === 'tool_use' ? { id: b.id, name: b.name, input: b.input } : b)),
      [
        { id: 'call_p1', name: 'get_weather', input: { city: 'Lyon', days: [3] } },
        { id: 'call_p2', name: 'get_time', input: { city: 'Tōkyō' } },
      ],
    );
    // Each call is its own block: started with empty input, filled by input_json_delta, stopped before the next.
    const starts = events.filter((e) => e.type === 'content_block_start');
    assert.deepEqual(
      starts.map((e) => (e.type === 'content_block_start' ? [e.index, e.content_block] : null)),
      [
        [0, { type: 'tool_use', id: 'call_p1', name: 'get_weather', input: {} }],
        [1, { type: 'tool_use', id: 'call_p2', name: 'get_time', input: {} }],
      ],
    );
    const json = (index: number): string =>
      events
        .map((e) => (e.type === 'content_block_delta' && e.index === index && e.delta.type === 'input_json_delta' ? e.delta.partial_json : ''))
        .join('');
    assert.deepEqual(JSON.parse(json(0)), { city: 'Lyon', days: [3] });
    assert.deepEqual(JSON.parse(json(1)), { city: 'Tōkyō' });
    const order = events.map((e) => (e.type === 'content_block_start' || e.type === 'content_block_stop' ? `${e.type}:${e.index}` : null)).filter((x) => x !== null);
    assert.deepEqual(order, ['content_block_start:0', 'content_block_stop:0', 'content_block_start:1', 'content_block_stop:1']);

    const got = onlyNewRequest(before);
    assertResponsesCall(got);
    assert.equal(got.body['stream'], true);
    const tools = got.body['tools'];
    assert.ok(Array.isArray(tools));
    assert.deepEqual(
      tools.map((t: unknown) => (isRecord(t) ? [t['type'], t['name'], t['parameters']] : t)),
      [
        ['function', 'get_weather', WEATHER_TOOL.input_schema],
        ['function', 'get_time', TIME_TOOL.input_schema],
      ],
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 4. The system prompt

describe('system', () => {
  test('a system string reaches the upstream as instructions or a system/developer item, not as user text', async () => {
    upstream.reply = () => ({ kind: 'response', output: [textMessage('msg_y1', 'ok')] });
    const before = upstream.requests.length;
    await client.messages.create({
      model: MODEL,
      max_tokens: 64,
      system: 'You are terse. Réponds en français.',
      messages: [{ role: 'user', content: 'hello' }],
    });
    const got = onlyNewRequest(before);
    assertResponsesCall(got);
    assert.deepEqual(systemTexts(got.body), ['You are terse. Réponds en français.']);
    assert.deepEqual(
      messagesOf(got.body, 'user').map((m) => textOf(m['content'])),
      ['hello'],
    );
  });

  test('system blocks reach the upstream in order', async () => {
    upstream.reply = () => ({ kind: 'response', output: [textMessage('msg_y2', 'ok')] });
    const before = upstream.requests.length;
    await client.messages.create({
      model: MODEL,
      max_tokens: 64,
      system: [
        { type: 'text', text: 'Block one: you are a weather bot.' },
        { type: 'text', text: 'Block two: answer in °C.', cache_control: { type: 'ephemeral' } },
      ],
      messages: [{ role: 'user', content: 'hello' }],
    });
    const got = onlyNewRequest(before);
    assertResponsesCall(got);
    const system = systemTexts(got.body).join('\n');
    const one = system.indexOf('Block one: you are a weather bot.');
    const two = system.indexOf('Block two: answer in °C.');
    assert.ok(one >= 0 && two > one, `both blocks in order in ${JSON.stringify(systemTexts(got.body))}`);
    assert.ok(
      messagesOf(got.body, 'user').every((m) => !textOf(m['content']).includes('Block one')),
      'the system prompt is not user text',
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 5. Cache tokens

describe('usage with cache tokens', () => {
  const usage: ResponsesUsage = { input: 5000, cached: 3000, cacheWrite: 1200, output: 80 };

  test('whole: cached_tokens and cache_write_tokens become cache_read/cache_creation, input_tokens the rest; so does the record', async () => {
    upstream.reply = () => ({ kind: 'response', output: [textMessage('msg_c1', 'cached')], usage });
    const { data, response } = await client.messages
      .create({ model: MODEL, max_tokens: 128, messages: [{ role: 'user', content: 'count' }] })
      .withResponse();
    assert.deepEqual(usageFields(data.usage), { input_tokens: 800, cache_creation_input_tokens: 1200, cache_read_input_tokens: 3000, output_tokens: 80 });
    assert.deepEqual(usageFields(data.usage), anthropicUsageFor(usage));

    const id = response.headers.get('x-request-id');
    assert.ok(id);
    const record = await recordFor(id);
    assert.deepEqual(
      { prompt: record.promptTokens, cached: record.cachedTokens, cacheWrite: record.cacheWriteTokens, completion: record.completionTokens },
      { prompt: 5000, cached: 3000, cacheWrite: 1200, completion: 80 },
    );
    assert.equal(record.route, '/v1/messages');
    assert.equal(record.channel, 'resp');
    assert.equal(record.model, MODEL);
    assert.equal(record.upstreamModel, UPSTREAM_MODEL);
    assert.equal(record.status, 200);
    assert.equal(record.stream, false);
    assert.equal(record.errorCode, null);
  });

  test('stream: the final message_delta usage and finalMessage() carry the same split; so does the record', async () => {
    upstream.reply = () => ({ kind: 'stream', output: [textMessage('msg_c2', 'cached stream')], usage });
    const res = await postMessages({ model: MODEL, max_tokens: 128, stream: true, messages: [{ role: 'user', content: 'count' }] });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const frames = withoutPings(parseSse(text));
    const delta = frames.find((f) => f.event === 'message_delta');
    assert.ok(delta, 'a message_delta frame');
    assert.deepEqual(usageFields(assertUsageShape(delta.data['usage'], 'message_delta')), anthropicUsageFor(usage));
    assert.equal(frames.at(-1)?.event, 'message_stop');

    const id = res.headers.get('x-request-id');
    assert.ok(id);
    const record = await recordFor(id);
    assert.deepEqual(
      { prompt: record.promptTokens, cached: record.cachedTokens, cacheWrite: record.cacheWriteTokens, completion: record.completionTokens },
      { prompt: 5000, cached: 3000, cacheWrite: 1200, completion: 80 },
    );
    assert.equal(record.stream, true);
    assert.equal(record.channel, 'resp');
    assert.equal(record.upstreamModel, UPSTREAM_MODEL);
    assert.equal(record.aborted, false);

    upstream.reply = () => ({ kind: 'stream', output: [textMessage('msg_c3', 'cached stream')], usage });
    const message = await withDeadline(
      client.messages.stream({ model: MODEL, max_tokens: 128, messages: [{ role: 'user', content: 'count' }] }).finalMessage(),
      WAIT_MS,
      'the SDK stream finished',
    );
    assert.deepEqual(usageFields(message.usage), anthropicUsageFor(usage));
  });

  test('the default upstream usage (cached, no cache write) in a stream record', async () => {
    upstream.reply = () => ({ kind: 'stream', output: [textMessage('msg_c4', 'x')] });
    const stream = client.messages.stream({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'x' }] });
    const { response } = await stream.withResponse();
    const message = await withDeadline(stream.finalMessage(), WAIT_MS, 'the stream finished');
    assert.deepEqual(usageFields(message.usage), anthropicUsageFor(DEFAULT_RESPONSES_USAGE));
    const id = response.headers.get('x-request-id');
    assert.ok(id);
    const record = await recordFor(id);
    assert.equal(record.promptTokens, DEFAULT_RESPONSES_USAGE.input);
    assert.equal(record.cachedTokens, DEFAULT_RESPONSES_USAGE.cached);
    assert.equal(record.cacheWriteTokens, 0);
    assert.equal(record.completionTokens, DEFAULT_RESPONSES_USAGE.output);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 6. Errors

const UPSTREAM_400 = {
  error: {
    message: "Invalid 'input[1].content': string too long. Expected a string with maximum length 10485760.",
    type: 'invalid_request_error',
    param: 'input[1].content',
    code: 'string_above_max_length',
  },
};

describe('errors', () => {
  test('an upstream 400 becomes an Anthropic invalid_request_error (BadRequestError) with the upstream message', async () => {
    upstream.reply = () => ({ kind: 'status', status: 400, body: UPSTREAM_400 });
    const before = upstream.requests.length;
    const err = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'too long' }] }).then(
      () => assert.fail('expected a BadRequestError'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof Anthropic.BadRequestError, `expected a BadRequestError, got ${String(err)}`);
    assert.equal(err.status, 400);
    const body = err.error;
    assert.ok(isRecord(body), JSON.stringify(body));
    assert.equal(body['type'], 'error');
    const inner = body['error'];
    assert.ok(isRecord(inner), JSON.stringify(body));
    assert.equal(inner['type'], 'invalid_request_error');
    assert.ok(String(inner['message']).includes(UPSTREAM_400.error.message), `the upstream message in ${JSON.stringify(body)}`);
    // Not OpenAI's shape: nothing of the upstream body but its message.
    assert.equal(inner['param'], undefined);
    assert.equal(inner['code'], undefined);
    assert.equal(upstream.requests.length, before + 1, 'a 400 is not retried elsewhere');
  });

  test('an upstream 400 to a stream request is the same BadRequestError, before any event', async () => {
    upstream.reply = () => ({ kind: 'status', status: 400, body: UPSTREAM_400 });
    const res = await postMessages({ model: MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'too long' }] });
    const text = await res.text();
    assert.equal(res.status, 400, text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const json: unknown = JSON.parse(text);
    assert.ok(isRecord(json) && isRecord(json['error']), text);
    assert.equal(json['type'], 'error');
    assert.equal(json['error']['type'], 'invalid_request_error');
    assert.ok(String(json['error']['message']).includes(UPSTREAM_400.error.message), text);

    upstream.reply = () => ({ kind: 'status', status: 400, body: UPSTREAM_400 });
    const stream = client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'too long' }] });
    const err = await withDeadline(stream.finalMessage(), WAIT_MS, 'the stream failed').then(
      () => assert.fail('expected a BadRequestError'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof Anthropic.BadRequestError, `expected a BadRequestError, got ${String(err)}`);
    assert.ok(err.message.includes(UPSTREAM_400.error.message), err.message);
  });

  test('response.failed mid-stream becomes an `event: error` frame, the last one, and the SDK stream throws', async () => {
    const failure = { code: 'server_error', message: 'The model exploded mid-answer.' };
    // created, in_progress, output_item.added, content_part.added, two text deltas; then response.failed.
    upstream.reply = () => ({ kind: 'stream', output: [textMessage('msg_f1', 'Partial answer that never ends')], failAfter: 6, failure });
    const res = await postMessages({ model: MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'fail' }] });
    const text = await res.text();
    assert.equal(res.status, 200, 'the status line was sent before the failure');
    const frames = parseSse(text);
    assertNamedFrames(frames);
    const events = withoutPings(frames);
    assert.equal(events[0]?.event, 'message_start');
    const streamed = events
      .filter((f) => f.event === 'content_block_delta')
      .map((f) => (isRecord(f.data['delta']) ? f.data['delta']['text'] : ''))
      .join('');
    assert.equal(streamed, 'Partial ', 'the text that came before the failure');
    const last = events.at(-1);
    assert.equal(last?.event, 'error', `the stream ends with an error frame:\n${text}`);
    assert.ok(last && isRecord(last.data['error']), JSON.stringify(last?.data));
    assert.equal(last.data['type'], 'error');
    assert.equal(last.data['error']['type'], 'api_error');
    assert.ok(String(last.data['error']['message']).includes('The model exploded mid-answer.'), JSON.stringify(last.data));
    assert.equal(events.filter((f) => f.event === 'error').length, 1);
    assert.ok(!events.some((f) => f.event === 'message_stop'), 'no message_stop after an error');

    upstream.reply = () => ({ kind: 'stream', output: [textMessage('msg_f2', 'Partial answer that never ends')], failAfter: 6, failure });
    const stream = client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'fail' }] });
    let deltas = '';
    stream.on('text', (delta) => {
      deltas += delta;
    });
    const err = await withDeadline(stream.finalMessage(), WAIT_MS, 'the stream failed').then(
      () => assert.fail('expected the stream to throw'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof Anthropic.APIError, `expected an APIError, got ${String(err)}`);
    assert.ok(err.message.includes('The model exploded mid-answer.'), err.message);
    assert.equal(deltas, 'Partial ');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// 7. The other direction: Responses input that an Anthropic upstream cannot take is refused before any call

describe('a Responses client and an Anthropic-only model', () => {
  async function badRequest(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.BadRequestError>> {
    const err = await call.then(
      () => assert.fail('expected a BadRequestError'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof OpenAI.BadRequestError, `expected a BadRequestError, got ${String(err)}`);
    assert.equal(err.status, 400);
    assert.equal(err.type, 'invalid_request_error');
    return err;
  }

  test('a plain request is translated (the control case): the Anthropic upstream answers', async () => {
    const before = antUpstream.requests.length;
    const response = await responsesClient.responses.create({ model: ANTHROPIC_ONLY_MODEL, input: 'hi', max_output_tokens: 99 });
    assert.equal(response.output_text, 'reply from ant-only');
    assert.equal(antUpstream.requests.length, before + 1);
    const got = antUpstream.requests[before];
    assert.equal(got?.path.split('?')[0], '/v1/messages');
    assert.equal(got?.body['max_tokens'], 99);
  });

  for (const stream of [false, true]) {
    test(`an input item of type "compaction" gets a 400 naming it; the upstream receives nothing (stream: ${stream})`, async () => {
      const before = antUpstream.requests.length;
      const input = [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'continue' }] },
        { type: 'compaction', id: 'cmp_01', encrypted_content: 'gAAAAB-opaque-compaction==' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and now?' }] },
      ] as unknown as OpenAI.Responses.ResponseInput;
      const err = await badRequest(responsesClient.responses.create({ model: ANTHROPIC_ONLY_MODEL, input, stream }));
      assert.match(err.message, /compaction/);
      assert.equal(antUpstream.requests.length, before, 'nothing was sent upstream');
    });
  }

  test('an unknown tool type gets a 400 naming it; the upstream receives nothing', async () => {
    const before = antUpstream.requests.length;
    const tools = [
      { type: 'function', name: 'ok_tool', parameters: { type: 'object', properties: {} }, strict: false },
      { type: 'quantum_tool', qubits: 3 },
    ] as unknown as OpenAI.Responses.Tool[];
    const err = await badRequest(responsesClient.responses.create({ model: ANTHROPIC_ONLY_MODEL, input: 'entangle', tools }));
    assert.match(err.message, /quantum_tool/);
    assert.equal(antUpstream.requests.length, before, 'nothing was sent upstream');
  });
});
