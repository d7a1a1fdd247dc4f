// The official `openai` SDK (v6) chat.completions through the gateway to an upstream that speaks ONLY Anthropic
// Messages: each request is translated Chat -> IR -> Messages, and the answer (body, stream, error) back into
// Chat's shapes. Checked on both sides: what the SDK returns, and what the fake Anthropic upstream received (it
// validates bodies as the real API does, strict mode, and answers 400 to what Anthropic would refuse).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import {
  FakeAnthropic,
  type AnthropicUsage,
  type FakeAnthropicReply,
  type FakeBlock,
  type RecordedAnthropicRequest,
} from '../helpers/fake-anthropic.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';
import type { UsageRecord } from '../../core/store/store.js';

const MODEL = 'gpt-5.4';
const UPSTREAM_MODEL = 'claude-sonnet-4-5';
const CHANNEL = 'claude';
const UPSTREAM_KEY = `sk-ant-upstream-${CHANNEL}`;
const USAGE: AnthropicUsage = { input: 25, output: 14, cacheRead: 1500, cacheWrite: 300 };
/** A 1x1 PNG. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const WEATHER_TOOL: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather of a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  },
};
const TIME_TOOL: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_time',
    description: 'The local time of a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' }, format: { type: 'string' } }, required: ['city'] },
  },
};

type Json = Record<string, unknown>;

let upstream: FakeAnthropic;
let gw: GatewayUnderTest;
let client: OpenAI;

before(async () => {
  upstream = await new FakeAnthropic('anthropic-only').start();
  upstream.strict = true;
  gw = await startGatewayUnderTest(
    configWith(`  - name: ${CHANNEL}
    type: anthropic
    base_url: ${upstream.url}
    keys: ["${UPSTREAM_KEY}"]
    models: { "${MODEL}": "${UPSTREAM_MODEL}" }
    cooldown_ms: 0
`),
  );
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gw.stop();
  await upstream.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Helpers

/** Scripts the next answers: `blocks` as a message or a stream, whichever the request asks for. */
function replyWith(blocks: readonly FakeBlock[], options: { readonly usage?: AnthropicUsage; readonly errorAfter?: number } = {}): void {
  const usage = options.usage ?? USAGE;
  upstream.reply = (req): FakeAnthropicReply =>
    req.body['stream'] === true
      ? { kind: 'stream', content: blocks, usage, ...(options.errorAfter === undefined ? {} : { errorAfter: options.errorAfter }) }
      : { kind: 'message', content: blocks, usage };
}

/** The single upstream call made since `before`, checked for what every translated call must be. */
function onlyCallSince(before: number): RecordedAnthropicRequest {
  const calls = upstream.requests.slice(before);
  assert.equal(calls.length, 1, `one upstream call; rejected by the strict fake: ${JSON.stringify(upstream.rejected)}`);
  const call = calls[0];
  assert.ok(call !== undefined);
  assert.equal(call.method, 'POST');
  assert.equal(call.path, '/v1/messages');
  assert.equal(call.headers['x-api-key'], UPSTREAM_KEY, 'the channel key, as Anthropic wants it');
  assert.equal(call.headers['authorization'], undefined);
  assert.match(String(call.headers['anthropic-version']), /^\d{4}-\d{2}-\d{2}$/);
  assert.ok(!call.raw.includes(TEST_KEY) && !JSON.stringify(call.headers).includes(TEST_KEY), 'the caller key stays here');
  assert.equal(call.body['model'], UPSTREAM_MODEL);
  return call;
}

function messagesOf(req: RecordedAnthropicRequest): Json[] {
  const messages = req.body['messages'];
  return Array.isArray(messages) ? (messages as Json[]) : [];
}

function blocksOf(message: Json | undefined): Json[] {
  const content = message?.['content'];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Json[]) : [];
}

function systemText(req: RecordedAnthropicRequest): string {
  const system = req.body['system'];
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((b) => String((b as Json)['text'] ?? '')).join('\n') : '';
}

function recordFor(requestId: string | null): Promise<UsageRecord> {
  assert.ok(requestId !== null, 'the gateway names its request id (x-request-id)');
  return until(`the usage record of ${requestId}`, async () => (await gw.usage()).find((r) => r.requestId === requestId), {
    timeoutMs: 5_000,
    intervalMs: 25,
  });
}

function expectedChatUsage(u: AnthropicUsage): Json {
  const prompt = u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    cached_tokens: u.cacheRead ?? 0,
    cache_write_tokens: u.cacheWrite ?? 0,
    reasoning_tokens: u.thinking ?? 0,
  };
}

function chatUsageOf(usage: OpenAI.CompletionUsage | null | undefined): Json {
  const details = (usage?.prompt_tokens_details ?? {}) as Json;
  return {
    prompt_tokens: usage?.prompt_tokens,
    completion_tokens: usage?.completion_tokens,
    total_tokens: usage?.total_tokens,
    cached_tokens: details['cached_tokens'],
    cache_write_tokens: details['cache_write_tokens'],
    reasoning_tokens: usage?.completion_tokens_details?.reasoning_tokens,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Text

test('non-stream text: the Claude message comes back as a chat.completion', async () => {
  replyWith([{ type: 'text', text: 'Bonjour — from Claude ✓' }]);
  const before = upstream.requests.length;
  const { data: res, request_id } = await client.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })
    .withResponse();
  assert.equal(res.object, 'chat.completion');
  assert.match(res.id, /^chatcmpl-/);
  assert.equal(res.model, UPSTREAM_MODEL, "the upstream's reported model");
  assert.equal(res.choices.length, 1);
  assert.equal(res.choices[0]?.message.role, 'assistant');
  assert.equal(res.choices[0]?.message.content, 'Bonjour — from Claude ✓');
  assert.equal(res.choices[0]?.finish_reason, 'stop');
  assert.deepEqual(chatUsageOf(res.usage), expectedChatUsage(USAGE));

  const call = onlyCallSince(before);
  assert.notEqual(call.body['stream'], true, 'a non-stream request is not streamed upstream');
  assert.equal(call.body['max_tokens'], 8192, 'Anthropic requires max_tokens: the documented default');
  const messages = messagesOf(call);
  assert.equal(messages.length, 1);
  assert.equal(messages[0]?.['role'], 'user');
  assert.deepEqual(blocksOf(messages[0]), [{ type: 'text', text: 'hi' }]);
  assert.equal(call.body['tools'], undefined);
  assert.equal(call.body['tool_choice'], undefined, 'no tool_choice without tools');

  const record = await recordFor(request_id);
  assert.equal(record.route, '/v1/chat/completions');
  assert.equal(record.model, MODEL);
  assert.equal(record.upstreamModel, UPSTREAM_MODEL);
  assert.equal(record.channel, CHANNEL);
  assert.equal(record.status, 200);
  assert.equal(record.stream, false);
});

test('stream with include_usage: thinking and text deltas, finish_reason stop, then the usage chunk', async () => {
  replyWith([
    { type: 'thinking', thinking: 'Short greeting needed.', signature: 'EqQBsig-stream' },
    { type: 'text', text: 'Hello from Claude — streamed ✓' },
  ]);
  const before = upstream.requests.length;
  const { data: stream, request_id } = await client.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } })
    .withResponse();
  let text = '';
  let reasoning = '';
  const finishes: string[] = [];
  const usageChunks: OpenAI.CompletionUsage[] = [];
  let chunksAfterUsage = 0;
  for await (const chunk of stream) {
    assert.equal(chunk.object, 'chat.completion.chunk');
    if (usageChunks.length > 0) chunksAfterUsage++;
    const choice = chunk.choices[0];
    text += choice?.delta.content ?? '';
    reasoning += String((choice?.delta as Json | undefined)?.['reasoning_content'] ?? '');
    if (choice?.finish_reason) finishes.push(choice.finish_reason);
    if (chunk.usage) {
      assert.deepEqual(chunk.choices, [], 'the usage chunk has no choices');
      usageChunks.push(chunk.usage);
    }
  }
  assert.equal(text, 'Hello from Claude — streamed ✓');
  assert.equal(reasoning, 'Short greeting needed.', 'thinking reaches a chat client as reasoning_content');
  assert.deepEqual(finishes, ['stop']);
  assert.equal(usageChunks.length, 1, 'exactly one usage chunk');
  assert.equal(chunksAfterUsage, 0, 'the usage chunk is the last');
  assert.deepEqual(chatUsageOf(usageChunks[0]), expectedChatUsage(USAGE));

  const call = onlyCallSince(before);
  assert.equal(call.body['stream'], true);
  assert.equal(call.body['stream_options'], undefined, 'no chat-only field goes to Anthropic');
  const record = await recordFor(request_id);
  assert.equal(record.stream, true);
  assert.equal(record.status, 200);
  assert.equal(record.promptTokens, USAGE.input + (USAGE.cacheRead ?? 0) + (USAGE.cacheWrite ?? 0));
  assert.equal(record.completionTokens, USAGE.output);
});

test('stream without include_usage: no usage chunk reaches the client, the call is still metered', async () => {
  replyWith([{ type: 'text', text: 'No usage for you.' }]);
  const before = upstream.requests.length;
  const { data: stream, request_id } = await client.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true })
    .withResponse();
  let text = '';
  let sawUsage = false;
  let sawEmptyChoices = false;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) sawUsage = true;
    if (chunk.choices.length === 0) sawEmptyChoices = true;
  }
  assert.equal(text, 'No usage for you.');
  assert.equal(sawUsage, false, 'no chunk carries usage');
  assert.equal(sawEmptyChoices, false, 'no usage-only chunk');
  onlyCallSince(before);
  const record = await recordFor(request_id);
  assert.equal(record.completionTokens, USAGE.output, 'metered all the same');
  assert.equal(record.cachedTokens, USAGE.cacheRead);

  // The raw bytes: data-only frames ending in [DONE], none of them a usage chunk.
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const raw = await res.text();
  assert.ok(raw.endsWith('data: [DONE]\n\n'), raw.slice(-200));
  assert.ok(!/^event:/m.test(raw), 'chat streams have no event: lines');
  const chunks = raw
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: {'))
    .map((frame) => JSON.parse(frame.slice('data: '.length)) as Json);
  assert.ok(chunks.length > 0);
  assert.ok(
    chunks.every((c) => Array.isArray(c['choices']) && c['choices'].length === 1 && (c['usage'] ?? null) === null),
    'every chunk has its choice and no usage: the usage chunk is dropped',
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Tools

test('a tool call, non-stream: tool_use becomes tool_calls (id, name, JSON arguments), finish_reason tool_calls', async () => {
  replyWith([
    { type: 'text', text: 'Let me check.' },
    { type: 'tool_use', id: 'toolu_01WeatherParis', name: 'get_weather', input: { city: 'Paris' } },
  ]);
  const before = upstream.requests.length;
  const res = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: [WEATHER_TOOL],
    tool_choice: 'required',
    parallel_tool_calls: false,
  });
  const choice = res.choices[0];
  assert.equal(choice?.finish_reason, 'tool_calls');
  assert.equal(choice?.message.content, 'Let me check.');
  const calls = choice?.message.tool_calls ?? [];
  assert.equal(calls.length, 1);
  const call0 = calls[0];
  assert.ok(call0 !== undefined && call0.type === 'function');
  assert.equal(call0.id, 'toolu_01WeatherParis');
  assert.equal(call0.function.name, 'get_weather');
  assert.deepEqual(JSON.parse(call0.function.arguments), { city: 'Paris' });

  const call = onlyCallSince(before);
  assert.deepEqual(call.body['tools'], [
    { name: 'get_weather', description: 'The weather of a city.', input_schema: WEATHER_TOOL.function.parameters },
  ]);
  assert.deepEqual(call.body['tool_choice'], { type: 'any', disable_parallel_tool_use: true });
});

test('two PARALLEL tool_use blocks, streamed: tool_calls deltas index 0 then 1, arguments in pieces', async () => {
  const weather = { city: 'Paris' };
  const time = { city: 'Tokyo', format: '24h' };
  replyWith([
    { type: 'tool_use', id: 'toolu_01Weather', name: 'get_weather', input: weather },
    { type: 'tool_use', id: 'toolu_02Time', name: 'get_time', input: time },
  ]);
  const before = upstream.requests.length;
  const stream = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'Weather in Paris and time in Tokyo?' }],
    tools: [WEATHER_TOOL, TIME_TOOL],
    stream: true,
    stream_options: { include_usage: true },
  });
  const order: number[] = [];
  const ids = new Map<number, string>();
  const names = new Map<number, string>();
  const args = new Map<number, string[]>();
  const finishes: string[] = [];
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    if (choice?.finish_reason) finishes.push(choice.finish_reason);
    for (const delta of choice?.delta.tool_calls ?? []) {
      order.push(delta.index);
      if (delta.id !== undefined) {
        assert.ok(!ids.has(delta.index), `one id per index: ${delta.index}`);
        ids.set(delta.index, delta.id);
        assert.equal(delta.type, 'function');
      }
      if (delta.function?.name !== undefined) names.set(delta.index, delta.function.name);
      const piece = delta.function?.arguments;
      if (piece !== undefined && piece !== '') args.set(delta.index, [...(args.get(delta.index) ?? []), piece]);
    }
  }
  assert.deepEqual([...ids.entries()], [
    [0, 'toolu_01Weather'],
    [1, 'toolu_02Time'],
  ]);
  assert.deepEqual([...names.entries()], [
    [0, 'get_weather'],
    [1, 'get_time'],
  ]);
  assert.deepEqual(order, [...order].sort((a, b) => a - b), `every delta of index 0 before those of index 1: ${order.join(',')}`);
  assert.ok((args.get(0)?.length ?? 0) > 1 && (args.get(1)?.length ?? 0) > 1, 'the arguments arrive in several deltas');
  assert.deepEqual(JSON.parse(args.get(0)?.join('') ?? ''), weather);
  assert.deepEqual(JSON.parse(args.get(1)?.join('') ?? ''), time);
  assert.deepEqual(finishes, ['tool_calls']);

  const call = onlyCallSince(before);
  assert.equal(call.body['stream'], true);
  assert.deepEqual(
    (call.body['tools'] as Json[]).map((t) => t['name']),
    ['get_weather', 'get_time'],
  );
  const toolChoice = call.body['tool_choice'] as Json | undefined;
  assert.ok(toolChoice === undefined || toolChoice['type'] === 'auto', `tool_choice auto (or none sent): ${JSON.stringify(toolChoice)}`);
  assert.equal(toolChoice?.['disable_parallel_tool_use'], undefined, 'parallel tool use stays allowed');
});

test('tool results sent back: tool_calls -> tool_use blocks, tool messages -> tool_result blocks in ONE user message', async () => {
  replyWith([{ type: 'text', text: 'Paris: 18°C, Tokyo: 21:04.' }]);
  const before = upstream.requests.length;
  const res = await client.chat.completions.create({
    model: MODEL,
    tools: [WEATHER_TOOL, TIME_TOOL],
    messages: [
      { role: 'user', content: 'Weather in Paris and time in Tokyo?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'toolu_01Weather', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_02Time', type: 'function', function: { name: 'get_time', arguments: '{"city":"Tokyo","format":"24h"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01Weather', content: '18°C, sunny' },
      { role: 'tool', tool_call_id: 'toolu_02Time', content: '21:04' },
    ],
  });
  assert.equal(res.choices[0]?.message.content, 'Paris: 18°C, Tokyo: 21:04.');

  const call = onlyCallSince(before);
  const messages = messagesOf(call);
  assert.deepEqual(
    messages.map((m) => m['role']),
    ['user', 'assistant', 'user'],
    `the two tool messages make one user turn: ${JSON.stringify(messages).slice(0, 600)}`,
  );
  const uses = blocksOf(messages[1]).filter((b) => b['type'] === 'tool_use');
  assert.deepEqual(
    uses.map((b) => [b['id'], b['name'], b['input']]),
    [
      ['toolu_01Weather', 'get_weather', { city: 'Paris' }],
      ['toolu_02Time', 'get_time', { city: 'Tokyo', format: '24h' }],
    ],
  );
  assert.ok(!blocksOf(messages[1]).some((b) => b['type'] === 'text' && b['text'] === ''), 'no empty text block for content null');
  const results = blocksOf(messages[2]).filter((b) => b['type'] === 'tool_result');
  assert.equal(results.length, 2);
  assert.deepEqual(
    results.map((b) => b['tool_use_id']),
    ['toolu_01Weather', 'toolu_02Time'],
  );
  assert.match(JSON.stringify(results[0]?.['content']), /18°C, sunny/);
  assert.match(JSON.stringify(results[1]?.['content']), /21:04/);
});

// ---------------------------------------------------------------------------------------------------------------
// Request fields

test('a system message becomes Anthropic `system`, and max_completion_tokens becomes max_tokens', async () => {
  replyWith([{ type: 'text', text: 'Arr.' }]);
  const before = upstream.requests.length;
  await client.chat.completions.create({
    model: MODEL,
    max_completion_tokens: 321,
    messages: [
      { role: 'system', content: 'You are a pirate.' },
      { role: 'user', content: 'Greet me.' },
    ],
  });
  const call = onlyCallSince(before);
  assert.equal(systemText(call), 'You are a pirate.');
  assert.deepEqual(
    messagesOf(call).map((m) => m['role']),
    ['user'],
    'the system message is not a message upstream',
  );
  assert.equal(call.body['max_tokens'], 321);
  assert.equal(call.body['max_completion_tokens'], undefined);
});

test('an image_url data URL becomes an Anthropic base64 image source', async () => {
  replyWith([{ type: 'text', text: 'A single pixel.' }]);
  const before = upstream.requests.length;
  const res = await client.chat.completions.create({
    model: MODEL,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this image?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
        ],
      },
    ],
  });
  assert.equal(res.choices[0]?.message.content, 'A single pixel.');
  const call = onlyCallSince(before);
  const blocks = blocksOf(messagesOf(call)[0]);
  assert.deepEqual(blocks, [
    { type: 'text', text: 'What is in this image?' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
  ]);
});

test('response_format json_schema becomes output_config.format', async () => {
  const schema = { type: 'object', properties: { temp: { type: 'number' } }, required: ['temp'], additionalProperties: false };
  replyWith([{ type: 'text', text: '{"temp":21}' }]);
  const before = upstream.requests.length;
  const res = await client.chat.completions.create({
    model: MODEL,
    messages: [{ role: 'user', content: 'Temperature in Paris as JSON.' }],
    response_format: { type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } },
  });
  assert.deepEqual(JSON.parse(res.choices[0]?.message.content ?? ''), { temp: 21 });
  const call = onlyCallSince(before);
  const outputConfig = call.body['output_config'] as Json | undefined;
  assert.deepEqual(outputConfig?.['format'], { type: 'json_schema', schema });
  assert.equal(call.body['response_format'], undefined);
});

// ---------------------------------------------------------------------------------------------------------------
// Usage

test('cache tokens: cache_read_input_tokens are cached_tokens, prompt_tokens = input + cache read + cache write', async () => {
  const usage: AnthropicUsage = { input: 9, output: 33, cacheRead: 7000, cacheWrite: 1200, thinking: 6 };
  replyWith([{ type: 'text', text: 'Cached.' }], { usage });
  const { data: res, request_id } = await client.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: 'again' }] })
    .withResponse();
  assert.equal(res.usage?.prompt_tokens_details?.cached_tokens, 7000);
  assert.equal(res.usage?.prompt_tokens, 9 + 7000 + 1200);
  assert.deepEqual(chatUsageOf(res.usage), expectedChatUsage(usage));

  const record = await recordFor(request_id);
  assert.deepEqual(
    [record.promptTokens, record.cachedTokens, record.cacheWriteTokens, record.completionTokens, record.reasoningTokens],
    [9 + 7000 + 1200, 7000, 1200, 33, 6],
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Errors

test("an upstream 400 invalid_request_error is the SDK's BadRequestError with the upstream message", async () => {
  const upstreamMessage = 'messages.0.content.0.text: the fake refuses this prompt (xq-481)';
  const body = { type: 'error', error: { type: 'invalid_request_error', message: upstreamMessage } };
  upstream.reply = () => ({ kind: 'status', status: 400, body });
  const before = upstream.requests.length;
  let caught: unknown = null;
  try {
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof OpenAI.BadRequestError, `a BadRequestError, got ${String(caught)}`);
  assert.equal(caught.status, 400);
  assert.match(caught.message, /xq-481/);
  const error = caught.error as Json | undefined;
  assert.equal(error?.['type'], 'invalid_request_error');
  assert.match(String(error?.['message']), /the fake refuses this prompt \(xq-481\)/);
  assert.equal(caught.headers.get('content-type')?.startsWith('application/json'), true);
  onlyCallSince(before); // a 400 is the request's fault: no other channel is tried
  const record = await recordFor(caught.requestID ?? null);
  assert.equal(record.status, 400);
  assert.equal(record.errorCode, 'GW_ERR_UPSTREAM_BAD_REQUEST');
});

test('an upstream `event: error` (overloaded_error) mid-stream becomes an error the SDK stream throws', async () => {
  // Frames: message_start, content_block_start, ping, "Part", "ial " then the error.
  replyWith([{ type: 'text', text: 'Partial answer that never ends' }], { errorAfter: 5 });
  const before = upstream.requests.length;
  const { data: stream, request_id } = await client.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true })
    .withResponse();
  let text = '';
  let caught: unknown = null;
  try {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof OpenAI.APIError, `the stream throws an APIError, got ${String(caught)}`);
  assert.match(caught.message, /Overloaded/i);
  assert.equal(text, 'Partial ', 'the text before the error reached the client');
  onlyCallSince(before);
  const record = await recordFor(request_id);
  assert.equal(record.stream, true);
  assert.equal(record.errorCode, 'GW_ERR_UPSTREAM_OVERLOADED');
});
