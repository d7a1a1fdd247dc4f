// The OpenAI and Anthropic SDKs on a Gemini upstream (a `gemini` channel, the only one of its models), over real HTTP
// on loopback: each client's request translated into Gemini's generateContent or streamGenerateContent?alt=sse (the
// channel's key in x-goog-api-key), Gemini's answers, streams and errors translated back. For each of Chat
// Completions, Messages (create and the SDK's messages.stream) and Responses, whole and streamed:
// - a text answer (Gemini's text in pieces, its signature on the last one);
// - a tool round trip whose call Gemini signs (thoughtSignature): the result goes back as a functionResponse with the
//   function's name and the call's id, and the signature rides through an Anthropic client's thinking block and a
//   Responses client's reasoning item (encrypted_content) back onto the same functionCall; a Chat client, which has no
//   field for it, gets the placeholder Gemini accepts (skip_thought_signature_validator) on the call;
// - reasoning settings as thinkingConfig (a budget on 2.5, a level on 3), thought parts back as reasoning;
// - usage with cache and thought tokens as each API tells them, the record's counts, the charge exact at the prices
//   (cache reads at cache_read) and equal to what the client was told (x-gateway-cost, or the stream's usage.cost);
// - Google's 429 (RetryInfo) and 400 INVALID_ARGUMENT as each client's own API error, with the status and the wait.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { formatMoney, parseMoney } from '../../core/money/decimal.js';
import { unwrapProof } from '../../core/ir/proof-tag.js';
import { FakeGemini, GEMINI_USAGE, type GeminiReply } from '../helpers/fake-gemini.js';
import type { RecordedRequest } from '../helpers/loopback-http-server.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';
const KEY = 'sk-sdks-on-gemini-0123456789ab';
const UPSTREAM_KEY = 'AIza-sdks-on-gemini-0123456789';
const CREDIT = '10';
/** Gemini 2.5 thinks by a token budget, Gemini 3 by a level. */
const MODEL = 'gemini-2.5-pro';
const MODEL3 = 'gemini-3-pro-preview';
/** What Gemini signs its function call with, and the last part of a text answer. */
const CALL_SIGNATURE = 'EpYCsig-call-upstream-0123456789';
const TEXT_SIGNATURE = 'EqQBsig-text-upstream-9876543210';
const THOUGHT = 'I should look the weather up.';
const GREETING = ['Hello from ', 'Gemini.'];
const ANSWER = 'It is sunny in Paris.';
const PRICES = { input: '1.25', cache_read: '0.31', output: '10' };
/** GEMINI_USAGE (prompt 1200 of which 1000 cached, candidates 20, thoughts 150) as the record counts it. */
const EXPECTED = { prompt: 1200, cached: 1000, output: 170, reasoning: 150 };

type Json = Record<string, unknown>;

const fake = new FakeGemini(UPSTREAM_KEY);
let gw: GatewayUnderTest;

/** The weather tool every client declares. */
const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const CHAT_TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [{ type: 'function', function: WEATHER }];
const ANTHROPIC_TOOLS: Anthropic.Tool[] = [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.parameters as Anthropic.Tool.InputSchema }];
const RESPONSES_TOOLS: OpenAI.Responses.Tool[] = [{ type: 'function', name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.parameters, strict: false }];

function partsOf(request: RecordedRequest): Json[] {
  const contents = request.body['contents'];
  return Array.isArray(contents) ? (contents as Json[]).flatMap((c) => (Array.isArray(c['parts']) ? (c['parts'] as Json[]) : [])) : [];
}

function thinkingConfigOf(request: RecordedRequest | undefined): Json | undefined {
  return (request?.body['generationConfig'] as Json | undefined)?.['thinkingConfig'] as Json | undefined;
}

/** Gemini sends thought summaries only when asked (includeThoughts); it thinks, and signs, either way. */
function thoughts(request: RecordedRequest): Json[] {
  return thinkingConfigOf(request)?.['includeThoughts'] === true ? [{ text: THOUGHT, thought: true }] : [];
}

/** A text answer in two pieces, signed on the last (where Gemini puts the signature of an answer without calls). */
function textTurn(request: RecordedRequest): GeminiReply {
  return { kind: 'answer', parts: [...thoughts(request), { text: GREETING[0] }, { text: GREETING[1], thoughtSignature: TEXT_SIGNATURE }], usage: GEMINI_USAGE };
}

/**
 * Calls the tool (signed; `callId`: the id Gemini gives it, none as the Gemini API mostly sends); once the tool's result
 * is back, answers.
 */
function toolTurn(callId: string | null): (request: RecordedRequest) => GeminiReply {
  return (request) => {
    if (partsOf(request).some((part) => part['functionResponse'] !== undefined)) return { kind: 'answer', parts: [{ text: ANSWER }], usage: GEMINI_USAGE };
    const call = { ...(callId === null ? {} : { id: callId }), name: 'get_weather', args: { city: 'Paris' } };
    return { kind: 'answer', parts: [...thoughts(request), { functionCall: call, thoughtSignature: CALL_SIGNATURE }], usage: GEMINI_USAGE };
  };
}

/** The id the gateway makes for the first call of an answer without ids: from the responseId, the same every time. */
const MADE_ID = 'call_resp-fake-1_0';

before(async () => {
  await fake.start();
  gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "${MODEL}": { input: ${PRICES.input}, cache_read: ${PRICES.cache_read}, output: ${PRICES.output} }
    "${MODEL3}": { input: ${PRICES.input}, cache_read: ${PRICES.cache_read}, output: ${PRICES.output} }
groups:
  pro: { models: ["*"] }
accounts:
  - name: acme
keys:
  - { name: metered, key: ${KEY}, group: pro, account: acme }
# Never out of rotation: every client's error answer is asked of the one channel in turn.
health: { errors: 11, window: 10 }
channels:
  - { name: google, type: gemini, base_url: "${fake.url}", keys: [${UPSTREAM_KEY}], models: ["gemini-*"], cooldown_ms: 0 }
`);
  const credit = await fetch(`${gw.url}/admin/accounts/acme/credit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: CREDIT, idempotency_key: 'start' }),
  });
  assert.equal(credit.status, 201);
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.reply = textTurn;
});

after(async () => {
  await gw.stop();
  await fake.close();
});

const openai = (): OpenAI => new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = (): Anthropic => new Anthropic({ apiKey: KEY, baseURL: gw.url, maxRetries: 0 });

// ---- the upstream calls, the records and the charge ----

/** The `n`th upstream call of this test: Gemini's path for the model and the method, the channel's key, no caller key. */
function upstreamCall(n: number, stream: boolean, model = MODEL): RecordedRequest {
  assert.equal(fake.requests.length, n + 1, `upstream calls: ${fake.requests.map((r) => r.path).join(', ')}`);
  const request = fake.requests[n] as RecordedRequest;
  assert.equal(request.method, 'POST');
  assert.equal(request.path, `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`);
  assert.equal(request.headers['x-goog-api-key'], UPSTREAM_KEY);
  assert.equal(request.headers['authorization'], undefined, 'Gemini is given its key, and no other');
  assert.ok(!request.raw.includes(KEY) && !JSON.stringify(request.headers).includes(KEY), 'the caller\'s key never goes upstream');
  assert.equal(request.body['model'], undefined, 'the model is in the path, not the body');
  return request;
}

/** The charge of GEMINI_USAGE, in nano-units: cache reads at cache_read, the rest of the prompt at input, output (thoughts included) at output. */
function charge(): bigint {
  const perMillion =
    BigInt(EXPECTED.prompt - EXPECTED.cached) * parseMoney(PRICES.input) + BigInt(EXPECTED.cached) * parseMoney(PRICES.cache_read) + BigInt(EXPECTED.output) * parseMoney(PRICES.output);
  return (perMillion + 999_999n) / 1_000_000n;
}

/** Every request id this file charged, to check the balance against at the end. */
const charged: string[] = [];

/** The record of `requestId`: the upstream's counts, the charge exact, and what the client was told equal to it. */
async function assertCharged(requestId: string | null, told: string | null, stream: boolean, model = MODEL): Promise<void> {
  const record = (await gw.usage()).find((r) => r.requestId === requestId);
  assert.ok(record !== undefined, `no record for ${requestId}`);
  assert.deepEqual(
    {
      channel: record.channel,
      model: record.upstreamModel,
      status: record.status,
      stream: record.stream,
      prompt: record.promptTokens,
      cached: record.cachedTokens,
      output: record.completionTokens,
      reasoning: record.reasoningTokens,
      estimated: record.usageEstimated ?? false,
    },
    { channel: 'google', model, status: 200, stream, ...EXPECTED, estimated: false },
  );
  assert.equal(record.cost, charge());
  assert.equal(told, formatMoney(charge()), 'the price told is the charge');
  charged.push(record.requestId);
}

/** A whole answer's cost header. */
function toldByHeader(response: Response): string | null {
  return response.headers.get('x-gateway-cost');
}

/** A stream's told cost: the number in its final usage, as a decimal (no header on a stream). */
function toldByStream(response: Response, cost: unknown): string {
  assert.equal(response.headers.get('x-gateway-cost'), null, 'a stream tells its cost in its final usage');
  assert.equal(typeof cost, 'number', 'the stream\'s usage holds its cost');
  return formatMoney(parseMoney(cost as number));
}

/** The functionCall and functionResponse the second upstream call carried back, for the call of id `id`. */
function sentBack(request: RecordedRequest, id: string): { readonly call: Json; readonly response: Json } {
  const parts = partsOf(request);
  const calls = parts.filter((part) => part['functionCall'] !== undefined);
  const results = parts.filter((part) => part['functionResponse'] !== undefined);
  assert.equal(calls.length, 1, JSON.stringify(parts));
  assert.equal(results.length, 1, JSON.stringify(parts));
  const call = calls[0] as Json;
  const fn = call['functionCall'] as Json;
  const response = (results[0] as Json)['functionResponse'] as Json;
  assert.deepEqual([fn['id'], fn['name'], fn['args']], [id, 'get_weather', { city: 'Paris' }], 'the call as Gemini made it');
  assert.deepEqual(response, { id, name: 'get_weather', response: { output: '18 degrees and sunny' } }, 'the result answers the call, by its function\'s name and id');
  const contents = request.body['contents'] as Json[];
  assert.deepEqual(
    contents.map((c) => c['role']),
    ['user', 'model', 'user'],
    'the question, the model\'s call, the result',
  );
  // Thought summaries are not sent back (Gemini CLI drops them too); only the signature on the call.
  assert.ok(!parts.some((part) => part['thought'] === true), JSON.stringify(parts));
  return { call, response };
}

/**
 * The model turn of a follow-up to the text answer, as Gemini gets it back: the text as it came, the signature on the
 * part it came on (the thought summary is not sent back).
 */
function assertTextTurnBack(request: RecordedRequest): void {
  const contents = request.body['contents'] as Json[];
  assert.deepEqual(contents, [
    { role: 'user', parts: [{ text: 'Say hello.' }] },
    { role: 'model', parts: [{ text: GREETING[0] }, { text: GREETING[1], thoughtSignature: TEXT_SIGNATURE }] },
    { role: 'user', parts: [{ text: 'Again.' }] },
  ]);
}

/** A reasoning proof the gateway wrapped for a client (Anthropic signature, Responses encrypted_content) is Gemini's signature. */
function assertWrapsSignature(value: string | null | undefined, signature: string): void {
  assert.ok(typeof value === 'string' && value !== '', 'a proof to send back');
  const unwrapped = unwrapProof(value);
  assert.deepEqual(unwrapped?.proof, { dialect: 'gemini', value: signature }, `the proof carries Gemini's signature: ${value}`);
}

// ---- OpenAI Chat Completions ----

/** One Chat completion, whole or streamed, read into what a whole one holds; with the told cost. */
async function chatCompletion(
  body: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
  stream: boolean,
): Promise<{ readonly message: OpenAI.Chat.Completions.ChatCompletionMessage & { reasoning_content?: string }; readonly finish: string | null; readonly usage: OpenAI.CompletionUsage | undefined; readonly requestId: string | null; readonly told: string | null }> {
  if (!stream) {
    const { data, response } = await openai().chat.completions.create(body).withResponse();
    assert.equal(data.model, body.model);
    return { message: data.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage, finish: data.choices[0]?.finish_reason ?? null, usage: data.usage, requestId: response.headers.get('x-request-id'), told: toldByHeader(response) };
  }
  const { data, response } = await openai()
    .chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } })
    .withResponse();
  let content = '';
  let reasoning = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  const calls: { id: string; name: string; arguments: string }[] = [];
  for await (const chunk of data) {
    const choice = chunk.choices[0];
    const delta = choice?.delta as (OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string }) | undefined;
    content += delta?.content ?? '';
    reasoning += delta?.reasoning_content ?? '';
    for (const tool of delta?.tool_calls ?? []) {
      const call = (calls[tool.index] ??= { id: '', name: '', arguments: '' });
      call.id += tool.id ?? '';
      call.name += tool.function?.name ?? '';
      call.arguments += tool.function?.arguments ?? '';
    }
    finish = choice?.finish_reason ?? finish;
    if (chunk.usage !== null && chunk.usage !== undefined) usage = chunk.usage;
  }
  const message = {
    role: 'assistant' as const,
    content: content === '' ? null : content,
    refusal: null,
    ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
    ...(calls.length === 0 ? {} : { tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }),
  };
  return { message, finish, usage, requestId: response.headers.get('x-request-id'), told: toldByStream(response, (usage as { cost?: unknown } | undefined)?.cost) };
}

/** Chat's usage of GEMINI_USAGE: prompt = all input, cached inside it; completion = candidates + thoughts, thoughts as reasoning. */
function assertChatUsage(usage: OpenAI.CompletionUsage | undefined): void {
  assert.deepEqual(
    [usage?.prompt_tokens, usage?.prompt_tokens_details?.cached_tokens, usage?.completion_tokens, usage?.completion_tokens_details?.reasoning_tokens, usage?.total_tokens],
    [1200, 1000, 170, 150, 1370],
  );
}

for (const stream of [false, true]) {
  const how = stream ? 'streamed' : 'whole';
  describe(`the OpenAI SDK, chat.completions.create, ${how}, on a Gemini upstream`, () => {
    it('a text answer; reasoning_effort asks Gemini 2.5 for thoughts by a budget, which come back as reasoning_content', async () => {
      const got = await chatCompletion({ model: MODEL, reasoning_effort: 'low', messages: [{ role: 'user', content: 'Say hello.' }] }, stream);
      assert.equal(got.message.content, GREETING.join(''));
      assert.equal(got.message.reasoning_content, THOUGHT);
      assert.equal(got.finish, 'stop');
      const sent = upstreamCall(0, stream);
      // No cap named: a metered request carries the one it was reserved at (default_output_reserve, 4096), and low
      // thinks with a fifth of it.
      assert.deepEqual(sent.body['generationConfig'], { maxOutputTokens: 4096, thinkingConfig: { includeThoughts: true, thinkingBudget: 819 } });
      assert.deepEqual(sent.body['contents'], [{ role: 'user', parts: [{ text: 'Say hello.' }] }]);
      assertChatUsage(got.usage);
      await assertCharged(got.requestId, got.told, stream);
    });

    it('a tool round trip: the call and its id, the result as a functionResponse by name and id, the placeholder signature on the call', async () => {
      // Gemini's own id whole; the Gemini API's usual call without one streamed (the gateway makes one, stable).
      const given = stream ? null : 'call_w1';
      const id = given ?? MADE_ID;
      fake.reply = toolTurn(given);
      const question: OpenAI.Chat.Completions.ChatCompletionMessageParam = { role: 'user', content: 'Weather in Paris?' };
      const first = await chatCompletion({ model: MODEL, tools: CHAT_TOOLS, reasoning_effort: 'high', max_completion_tokens: 10_000, messages: [question] }, stream);
      assert.equal(first.finish, 'tool_calls');
      assert.equal(first.message.reasoning_content, THOUGHT);
      const call = first.message.tool_calls?.[0];
      assert.equal(first.message.tool_calls?.length, 1);
      assert.ok(call !== undefined && call.type === 'function');
      assert.deepEqual([call.id, call.function.name, JSON.parse(call.function.arguments)], [id, 'get_weather', { city: 'Paris' }]);
      const sent = upstreamCall(0, stream);
      // high: 80% of the cap, under its 16384.
      assert.deepEqual(thinkingConfigOf(sent), { includeThoughts: true, thinkingBudget: 8000 });
      assert.equal((sent.body['generationConfig'] as Json)['maxOutputTokens'], 10_000);
      assert.deepEqual(sent.body['tools'], [{ functionDeclarations: [{ name: WEATHER.name, description: WEATHER.description, parametersJsonSchema: WEATHER.parameters }] }]);
      assertChatUsage(first.usage);
      await assertCharged(first.requestId, first.told, stream);

      const second = await chatCompletion(
        {
          model: MODEL,
          tools: CHAT_TOOLS,
          messages: [question, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: '18 degrees and sunny' }],
        },
        stream,
      );
      assert.deepEqual([second.message.content, second.finish], [ANSWER, 'stop']);
      const back = sentBack(upstreamCall(1, stream), id);
      // Chat has no field for a signature: Gemini gets the placeholder it accepts for a call it cannot check.
      assert.equal(back.call['thoughtSignature'], 'skip_thought_signature_validator');
      assert.equal(thinkingConfigOf(fake.requests[1]), undefined, 'no reasoning asked, none sent');
      await assertCharged(second.requestId, second.told, stream);
    });
  });
}

// ---- Anthropic Messages ----

/** One message, by messages.create (whole) or the SDK's messages.stream; with the told cost. */
async function anthropicMessage(body: Anthropic.MessageCreateParamsNonStreaming, stream: boolean): Promise<{ readonly message: Anthropic.Message; readonly requestId: string | null; readonly told: string | null }> {
  if (!stream) {
    const { data, response } = await anthropic().messages.create(body).withResponse();
    return { message: data, requestId: response.headers.get('x-request-id'), told: toldByHeader(response) };
  }
  const live = anthropic().messages.stream(body);
  let cost: unknown;
  let thinking = '';
  live.on('streamEvent', (event) => {
    if (event.type === 'message_delta') cost = (event.usage as { cost?: unknown }).cost;
  });
  live.on('thinking', (delta) => {
    thinking += delta;
  });
  const { response } = await live.withResponse();
  const message = await live.finalMessage();
  assert.equal(thinking, message.content.flatMap((b) => (b.type === 'thinking' ? [b.thinking] : [])).join(''), 'the thinking deltas make the thinking blocks');
  return { message, requestId: response.headers.get('x-request-id'), told: toldByStream(response, cost) };
}

/** Anthropic's usage of GEMINI_USAGE: input apart from the cache reads. */
function assertAnthropicUsage(usage: Anthropic.Usage): void {
  assert.deepEqual([usage.input_tokens, usage.cache_read_input_tokens, usage.output_tokens], [200, 1000, 170]);
}

function textOf(message: Anthropic.Message): string {
  return message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
}

for (const stream of [false, true]) {
  const how = stream ? 'messages.stream' : 'messages.create';
  describe(`the Anthropic SDK, ${how}, on a Gemini upstream`, () => {
    it('a text answer; thinking.budget_tokens is the thinkingBudget, thoughts come back as thinking', async () => {
      const got = await anthropicMessage(
        { model: MODEL, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'Say hello.' }] },
        stream,
      );
      assert.equal(textOf(got.message), GREETING.join(''));
      assert.equal(got.message.stop_reason, 'end_turn');
      const thinking = got.message.content.find((b) => b.type === 'thinking');
      assert.ok(thinking?.type === 'thinking', JSON.stringify(got.message.content));
      assert.equal(thinking.thinking, THOUGHT);
      const sent = upstreamCall(0, stream);
      assert.deepEqual(sent.body['generationConfig'], { maxOutputTokens: 4096, thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } });
      assertAnthropicUsage(got.message.usage);
      await assertCharged(got.requestId, got.told, stream);

      // The next turn, the answer sent back as it came: its signature returns to the part Gemini put it on.
      const next = await anthropicMessage(
        {
          model: MODEL,
          max_tokens: 4096,
          messages: [
            { role: 'user', content: 'Say hello.' },
            { role: 'assistant', content: got.message.content },
            { role: 'user', content: 'Again.' },
          ],
        },
        stream,
      );
      assert.equal(textOf(next.message), GREETING.join(''));
      assertTextTurnBack(upstreamCall(1, stream));
      await assertCharged(next.requestId, next.told, stream);
    });

    it('a tool_use round trip: the thinking block\'s signature carries Gemini\'s back onto the same functionCall', async () => {
      const given = stream ? null : 'call_w1';
      const id = given ?? MADE_ID;
      fake.reply = toolTurn(given);
      const params = { model: MODEL, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, tools: ANTHROPIC_TOOLS } as const;
      const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
      const first = await anthropicMessage({ ...params, messages: [question] }, stream);
      assert.equal(first.message.stop_reason, 'tool_use');
      const use = first.message.content.find((b) => b.type === 'tool_use');
      assert.ok(use?.type === 'tool_use', JSON.stringify(first.message.content));
      assert.deepEqual([use.id, use.name, use.input], [id, 'get_weather', { city: 'Paris' }]);
      // The thought, then the signature of the call in the thinking block just before it.
      const thinking = first.message.content.filter((b) => b.type === 'thinking');
      assert.equal(thinking.map((b) => b.thinking).join(''), THOUGHT);
      const signed = first.message.content[first.message.content.indexOf(use) - 1];
      assert.ok(signed?.type === 'thinking', JSON.stringify(first.message.content));
      assertWrapsSignature(signed.signature, CALL_SIGNATURE);
      assert.deepEqual(thinkingConfigOf(upstreamCall(0, stream)), { includeThoughts: true, thinkingBudget: 2048 });
      assertAnthropicUsage(first.message.usage);
      await assertCharged(first.requestId, first.told, stream);

      const second = await anthropicMessage(
        {
          ...params,
          messages: [
            question,
            { role: 'assistant', content: first.message.content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18 degrees and sunny' }] },
          ],
        },
        stream,
      );
      assert.deepEqual([textOf(second.message), second.message.stop_reason], [ANSWER, 'end_turn']);
      const back = sentBack(upstreamCall(1, stream), id);
      assert.equal(back.call['thoughtSignature'], CALL_SIGNATURE, 'Gemini\'s own signature, back on the call it signed');
      await assertCharged(second.requestId, second.told, stream);
    });
  });
}

// ---- OpenAI Responses ----

/** One response, whole or streamed (its response.completed); with the told cost. */
async function response(body: OpenAI.Responses.ResponseCreateParamsNonStreaming, stream: boolean): Promise<{ readonly response: OpenAI.Responses.Response; readonly requestId: string | null; readonly told: string | null }> {
  if (!stream) {
    const { data, response: res } = await openai().responses.create(body).withResponse();
    return { response: data, requestId: res.headers.get('x-request-id'), told: toldByHeader(res) };
  }
  const { data, response: res } = await openai()
    .responses.create({ ...body, stream: true })
    .withResponse();
  let completed: OpenAI.Responses.Response | null = null;
  let text = '';
  let summary = '';
  for await (const event of data) {
    if (event.type === 'response.output_text.delta') text += event.delta;
    if (event.type === 'response.reasoning_summary_text.delta') summary += event.delta;
    if (event.type === 'response.completed') completed = event.response;
  }
  assert.ok(completed !== null, 'the stream completed');
  assert.equal(text, outputText(completed), 'the text deltas make the text');
  assert.equal(summary, reasoningSummary(completed), 'the summary deltas make the summary');
  return { response: completed, requestId: res.headers.get('x-request-id'), told: toldByStream(res, (completed.usage as { cost?: unknown } | undefined)?.cost) };
}

/** The text of the response's messages (the SDK's output_text, which only a whole answer gets). */
function outputText(response: OpenAI.Responses.Response): string {
  return response.output
    .flatMap((item) => (item.type === 'message' ? item.content.flatMap((c) => (c.type === 'output_text' ? [c.text] : [])) : []))
    .join('');
}

function reasoningSummary(response: OpenAI.Responses.Response): string {
  return response.output.flatMap((item) => (item.type === 'reasoning' ? item.summary.map((s) => s.text) : [])).join('');
}

/** Responses' usage of GEMINI_USAGE: as Chat's. */
function assertResponsesUsage(usage: OpenAI.Responses.ResponseUsage | undefined): void {
  assert.deepEqual(
    [usage?.input_tokens, usage?.input_tokens_details.cached_tokens, usage?.output_tokens, usage?.output_tokens_details.reasoning_tokens, usage?.total_tokens],
    [1200, 1000, 170, 150, 1370],
  );
}

for (const stream of [false, true]) {
  const how = stream ? 'streamed' : 'whole';
  describe(`the OpenAI SDK, responses.create, ${how}, on a Gemini upstream`, () => {
    it('a text answer; reasoning.effort asks Gemini 3 for thoughts by a level, which come back as a reasoning summary', async () => {
      // Gemini 3 streams its usage alone, after the finish.
      fake.reply = (request) => ({ ...(textTurn(request) as Extract<GeminiReply, { kind: 'answer' }>), usageApart: true });
      const got = await response({ model: MODEL3, input: 'Say hello.', reasoning: { effort: 'high' } }, stream);
      assert.equal(got.response.status, 'completed');
      assert.equal(outputText(got.response), GREETING.join(''));
      assert.equal(reasoningSummary(got.response), THOUGHT);
      const sent = upstreamCall(0, stream, MODEL3);
      assert.deepEqual(thinkingConfigOf(sent), { includeThoughts: true, thinkingLevel: 'HIGH' });
      assertResponsesUsage(got.response.usage);
      await assertCharged(got.requestId, got.told, stream, MODEL3);

      // The next turn, the output sent back as it came: its signature returns to the part Gemini put it on.
      const next = await response(
        { model: MODEL3, input: [{ role: 'user', content: 'Say hello.' }, ...(got.response.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'Again.' }] },
        stream,
      );
      assert.equal(outputText(next.response), GREETING.join(''));
      assertTextTurnBack(upstreamCall(1, stream, MODEL3));
      await assertCharged(next.requestId, next.told, stream, MODEL3);
    });

    it('a function call round trip: the reasoning item\'s encrypted_content carries Gemini\'s signature back onto the same call', async () => {
      const given = stream ? null : 'call_w1';
      const id = given ?? MADE_ID;
      fake.reply = toolTurn(given);
      const first = await response({ model: MODEL, input: 'Weather in Paris?', tools: RESPONSES_TOOLS, reasoning: { effort: 'medium' }, max_output_tokens: 4000 }, stream);
      const output = first.response.output;
      const call = output.find((item) => item.type === 'function_call');
      assert.ok(call?.type === 'function_call', JSON.stringify(output));
      assert.deepEqual([call.call_id, call.name, JSON.parse(call.arguments)], [id, 'get_weather', { city: 'Paris' }]);
      assert.equal(reasoningSummary(first.response), THOUGHT);
      // The reasoning item just before the call holds its signature.
      const signed = output[output.indexOf(call) - 1];
      assert.ok(signed?.type === 'reasoning', JSON.stringify(output));
      assertWrapsSignature(signed.encrypted_content, CALL_SIGNATURE);
      const sent = upstreamCall(0, stream);
      // medium: half the cap, under its 8192.
      assert.deepEqual(sent.body['generationConfig'], { maxOutputTokens: 4000, thinkingConfig: { includeThoughts: true, thinkingBudget: 2000 } });
      assertResponsesUsage(first.response.usage);
      await assertCharged(first.requestId, first.told, stream);

      const second = await response(
        {
          model: MODEL,
          tools: RESPONSES_TOOLS,
          input: [
            { role: 'user', content: 'Weather in Paris?' },
            ...(output as OpenAI.Responses.ResponseInputItem[]),
            { type: 'function_call_output', call_id: call.call_id, output: '18 degrees and sunny' },
          ],
        },
        stream,
      );
      assert.equal(outputText(second.response), ANSWER);
      const back = sentBack(upstreamCall(1, stream), id);
      assert.equal(back.call['thoughtSignature'], CALL_SIGNATURE, 'Gemini\'s own signature, back on the call it signed');
      await assertCharged(second.requestId, second.told, stream);
    });
  });
}

// ---- errors ----

const RATE_LIMITED: GeminiReply = {
  kind: 'status',
  status: 429,
  body: {
    error: {
      code: 429,
      message: 'Resource has been exhausted (e.g. check quota).',
      status: 'RESOURCE_EXHAUSTED',
      details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
    },
  },
};
const INVALID: GeminiReply = { kind: 'status', status: 400, body: { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } } };

/** Each client's call, whole and streamed: what it threw. */
const CALLS: readonly { readonly name: string; readonly stream: boolean; readonly call: () => Promise<unknown> }[] = [false, true].flatMap((stream) => [
  {
    name: 'chat.completions.create',
    stream,
    call: async () => {
      const res = await openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream });
      if (stream) for await (const _ of res as AsyncIterable<unknown>);
    },
  },
  {
    name: stream ? 'messages.stream' : 'messages.create',
    stream,
    call: async () => {
      const body = { model: MODEL, max_tokens: 16, messages: [{ role: 'user' as const, content: 'hi' }] };
      if (stream) await anthropic().messages.stream(body).finalMessage();
      else await anthropic().messages.create(body);
    },
  },
  {
    name: 'responses.create',
    stream,
    call: async () => {
      const res = await openai().responses.create({ model: MODEL, input: 'hi', stream });
      if (stream) for await (const _ of res as AsyncIterable<unknown>);
    },
  },
]);

async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  assert.fail('the call succeeded');
}

describe('upstream errors reach each client as its own API\'s error', () => {
  for (const { name, stream, call } of CALLS) {
    const how = stream ? 'streamed' : 'whole';
    it(`${name}, ${how}: Google's 429 with a RetryInfo is a 429 with retry-after, its 400 INVALID_ARGUMENT a 400`, async () => {
      fake.reply = () => RATE_LIMITED;
      const limited = await failure(call);
      upstreamCall(0, stream);
      if (name.startsWith('messages')) {
        assert.ok(limited instanceof Anthropic.RateLimitError, String(limited));
        assert.equal((limited.error as { error?: { type?: string } }).error?.type, 'rate_limit_error');
      } else {
        assert.ok(limited instanceof OpenAI.RateLimitError, String(limited));
      }
      assert.equal(limited.headers?.get('retry-after'), '7', 'the client waits what Google asked');

      fake.reply = () => (stream ? { ...INVALID, body: [INVALID.body as Json] } : INVALID);
      const invalid = await failure(call);
      upstreamCall(1, stream);
      if (name.startsWith('messages')) {
        assert.ok(invalid instanceof Anthropic.BadRequestError, String(invalid));
        assert.equal((invalid.error as { error?: { type?: string } }).error?.type, 'invalid_request_error');
      } else {
        assert.ok(invalid instanceof OpenAI.BadRequestError, String(invalid));
      }
      assert.match(invalid.message, /invalid argument/);
      assert.equal(invalid.headers?.get('retry-after') ?? null, null);

      const records = (await gw.usage()).filter((r) => r.requestId === limited.headers?.get('x-request-id') || r.requestId === invalid.headers?.get('x-request-id'));
      assert.deepEqual(records.map((r) => [r.status, r.cost ?? 0n]).sort(), [[400, 0n], [429, 0n]], 'a failed call is recorded, and free');
    });
  }
});

describe('the account', () => {
  it('was charged exactly what each answer told, and nothing for the errors', async () => {
    const account = (await (await fetch(`${gw.url}/admin/accounts/acme`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as { balance: string };
    assert.equal(charged.length, 22, 'three APIs, whole and streamed: a text answer (and its next turn, but for Chat) and the two calls of a tool round trip');
    assert.equal(parseMoney(account.balance), parseMoney(CREDIT) - BigInt(charged.length) * charge());
  });
});
