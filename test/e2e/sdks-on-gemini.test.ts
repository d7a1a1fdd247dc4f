// The OpenAI and Anthropic SDKs on a Gemini upstream (a `gemini` channel, the only one of its model), over real HTTP
// on loopback: each client's request translated into Gemini's generateContent, Gemini's answers, streams and errors
// translated back. A tool round trip whose call Gemini signs (thoughtSignature): the signature rides through an
// Anthropic client's thinking block and a Responses client's reasoning item back onto the same functionCall; a Chat
// client, which cannot carry it, gets the placeholder Gemini accepts. Reasoning settings become thinkingConfig, thought
// parts come back as reasoning; usage with cache and thought tokens, the charge exact and told; errors in each API.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { formatMoney, parseMoney } from '../../core/money/decimal.js';
import { FakeGemini, GEMINI_USAGE, type GeminiReply } from '../helpers/fake-gemini.js';
import type { RecordedRequest } from '../helpers/loopback-http-server.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';
const KEY = 'sk-sdks-on-gemini-0123456789ab';
const UPSTREAM_KEY = 'AIza-sdks-on-gemini-0123456789';
const MODEL = 'gemini-2.5-pro';
const SIGNATURE = 'EpYCsig-upstream-0123456789';
const PRICES = { input: '1.25', cache_read: '0.31', output: '10' };
/** GEMINI_USAGE as the IR counts it: all input, cache reads, output = candidates + thoughts. */
const EXPECTED = { prompt: 1200, cached: 1000, output: 170, reasoning: 150 };

type Json = Record<string, unknown>;

const fake = new FakeGemini(UPSTREAM_KEY);
let gw: GatewayUnderTest;

/** The weather tool every client declares. */
const WEATHER = { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

function partsOf(request: RecordedRequest): Json[] {
  const contents = request.body['contents'];
  return Array.isArray(contents) ? (contents as Json[]).flatMap((c) => (Array.isArray(c['parts']) ? (c['parts'] as Json[]) : [])) : [];
}

/** Thinks, then calls the tool (signed); once the tool's result is back, answers. */
function toolTurn(request: RecordedRequest): GeminiReply {
  const result = partsOf(request).find((part) => part['functionResponse'] !== undefined);
  if (result === undefined) {
    return {
      kind: 'answer',
      parts: [{ text: 'I should look the weather up.', thought: true }, { functionCall: { id: 'call_w1', name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIGNATURE }],
      usage: GEMINI_USAGE,
    };
  }
  return { kind: 'answer', parts: [{ text: 'It is sunny in Paris.' }], usage: GEMINI_USAGE };
}

before(async () => {
  await fake.start();
  gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "${MODEL}": { input: ${PRICES.input}, cache_read: ${PRICES.cache_read}, output: ${PRICES.output} }
groups:
  pro: { models: ["*"] }
accounts:
  - name: acme
keys:
  - { name: metered, key: ${KEY}, group: pro, account: acme }
channels:
  - { name: google, type: gemini, base_url: "${fake.url}", keys: [${UPSTREAM_KEY}], models: ["gemini-*"], cooldown_ms: 0 }
`);
  const credit = await fetch(`${gw.url}/admin/accounts/acme/credit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: '10', idempotency_key: 'start' }),
  });
  assert.equal(credit.status, 201);
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.reply = toolTurn;
});

after(async () => {
  await gw.stop();
  await fake.close();
});

const openai = (): OpenAI => new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = (): Anthropic => new Anthropic({ apiKey: KEY, baseURL: gw.url, maxRetries: 0 });

function charge(): bigint {
  const perMillion =
    BigInt(EXPECTED.prompt - EXPECTED.cached) * parseMoney(PRICES.input) + BigInt(EXPECTED.cached) * parseMoney(PRICES.cache_read) + BigInt(EXPECTED.output) * parseMoney(PRICES.output);
  return (perMillion + 999_999n) / 1_000_000n;
}

/** The record of `requestId`: the upstream's counts, the charge exact, and what the client was told equal to it. */
async function assertCharged(requestId: string | null, told: string | null): Promise<void> {
  const record = (await gw.usage()).find((r) => r.requestId === requestId);
  assert.ok(record !== undefined, `no record for ${requestId}`);
  assert.deepEqual(
    [record.channel, record.status, record.promptTokens, record.cachedTokens, record.completionTokens, record.reasoningTokens, record.usageEstimated ?? false],
    ['google', 200, EXPECTED.prompt, EXPECTED.cached, EXPECTED.output, EXPECTED.reasoning, false],
  );
  assert.equal(record.cost, charge());
  assert.equal(told, formatMoney(charge()), 'the price told is the charge');
}

/** The upstream calls: Gemini's path for the model, the channel's key; the last one's functionCall and result. */
function secondCall(): { readonly call: Json; readonly result: Json } {
  assert.ok(fake.requests.length >= 2, `two upstream calls: ${fake.requests.map((r) => r.path).join(', ')}`);
  for (const request of fake.requests) {
    assert.match(request.path, new RegExp(`^/v1beta/models/${MODEL}:(generateContent|streamGenerateContent\\?alt=sse)$`));
    assert.equal(request.headers['x-goog-api-key'], UPSTREAM_KEY);
    assert.equal(request.body['model'], undefined, 'the model is in the path, not the body');
  }
  const parts = partsOf(fake.requests.at(-1) as RecordedRequest);
  const call = parts.find((part) => part['functionCall'] !== undefined);
  const result = parts.find((part) => part['functionResponse'] !== undefined);
  assert.ok(call !== undefined && result !== undefined, JSON.stringify(parts));
  assert.deepEqual((call['functionCall'] as Json)['args'], { city: 'Paris' });
  const response = result['functionResponse'] as Json;
  assert.equal(response['name'], 'get_weather', 'the function\'s name recovered for its result');
  assert.equal(response['id'], (call['functionCall'] as Json)['id'], 'the result answers the call');
  assert.match(JSON.stringify(response['response']), /18 degrees/);
  return { call, result };
}

describe('the OpenAI SDK (Chat Completions) on a Gemini upstream', () => {
  it('a tool round trip, whole answers: the call and its id, the placeholder signature, usage and the told charge', async () => {
    const first = await openai()
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [{ type: 'function', function: WEATHER }], reasoning_effort: 'high' })
      .withResponse();
    const call = first.data.choices[0]?.message.tool_calls?.[0];
    assert.equal(first.data.choices[0]?.finish_reason, 'tool_calls');
    assert.ok(call !== undefined && call.type === 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' });
    const thinking = (fake.requests[0]?.body['generationConfig'] as Json | undefined)?.['thinkingConfig'] as Json | undefined;
    assert.equal(thinking?.['includeThoughts'], true, 'reasoning_effort asks for thoughts');
    assert.ok(thinking?.['thinkingBudget'] !== undefined || thinking?.['thinkingLevel'] !== undefined, JSON.stringify(thinking));
    await assertCharged(first.response.headers.get('x-request-id'), first.response.headers.get('x-gateway-cost'));
    const second = await openai().chat.completions.create({
      model: MODEL,
      tools: [{ type: 'function', function: WEATHER }],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '18 degrees and sunny' },
      ],
    });
    assert.equal(second.choices[0]?.message.content, 'It is sunny in Paris.');
    const { call: sent } = secondCall();
    // Chat has no field for a signature: Gemini gets the placeholder it accepts for history it did not sign.
    assert.equal(sent['thoughtSignature'], 'skip_thought_signature_validator');
  });

  it('streamed: the reasoning, then the call, usage and the told charge in the usage chunk', async () => {
    const { data, response } = await openai()
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [{ type: 'function', function: WEATHER }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let reasoning = '';
    let args = '';
    let name = '';
    let cost: unknown;
    for await (const chunk of data) {
      const delta = chunk.choices[0]?.delta as (OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string }) | undefined;
      reasoning += delta?.reasoning_content ?? '';
      for (const tool of delta?.tool_calls ?? []) {
        name += tool.function?.name ?? '';
        args += tool.function?.arguments ?? '';
      }
      if (chunk.usage !== null && chunk.usage !== undefined) cost = (chunk.usage as { cost?: unknown }).cost;
    }
    assert.equal(reasoning, 'I should look the weather up.');
    assert.deepEqual([name, JSON.parse(args)], ['get_weather', { city: 'Paris' }]);
    await assertCharged(response.headers.get('x-request-id'), formatMoney(parseMoney(cost as number)));
  });
});

describe('the Anthropic SDK on a Gemini upstream', () => {
  it('a tool round trip, whole answers: the thinking block carries the signature back onto the same call', async () => {
    const tools = [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.parameters as Anthropic.Tool.InputSchema }];
    const first = await anthropic()
      .messages.create({ model: MODEL, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, tools, messages: [{ role: 'user', content: 'Weather in Paris?' }] })
      .withResponse();
    assert.equal(first.data.stop_reason, 'tool_use');
    const thinking = first.data.content.find((block) => block.type === 'thinking');
    const use = first.data.content.find((block) => block.type === 'tool_use');
    assert.ok(thinking?.type === 'thinking' && use?.type === 'tool_use', JSON.stringify(first.data.content));
    assert.equal(thinking.thinking, 'I should look the weather up.');
    assert.deepEqual(use.input, { city: 'Paris' });
    const config = (fake.requests[0]?.body['generationConfig'] as Json | undefined)?.['thinkingConfig'] as Json | undefined;
    assert.equal(config?.['thinkingBudget'], 2048, 'budget_tokens is the thinking budget');
    await assertCharged(first.response.headers.get('x-request-id'), first.response.headers.get('x-gateway-cost'));
    const second = await anthropic().messages.create({
      model: MODEL,
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      tools,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.data.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18 degrees and sunny' }] },
      ],
    });
    assert.deepEqual(second.content.filter((b) => b.type === 'text').map((b) => (b.type === 'text' ? b.text : '')), ['It is sunny in Paris.']);
    const { call } = secondCall();
    assert.equal(call['thoughtSignature'], SIGNATURE, 'Gemini\'s own signature, back on the call it signed');
  });

  it('streamed: thinking, the tool use, and the told charge in message_delta', async () => {
    const tools = [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.parameters as Anthropic.Tool.InputSchema }];
    const { data, response } = await anthropic()
      .messages.create({ model: MODEL, max_tokens: 4096, tools, stream: true, messages: [{ role: 'user', content: 'Weather in Paris?' }] })
      .withResponse();
    let thinking = '';
    let json = '';
    let cost: unknown;
    let stop: string | null = null;
    for await (const event of data) {
      if (event.type === 'content_block_delta' && event.delta.type === 'thinking_delta') thinking += event.delta.thinking;
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') json += event.delta.partial_json;
      if (event.type === 'message_delta') {
        cost = (event.usage as { cost?: unknown }).cost;
        stop = event.delta.stop_reason;
      }
    }
    assert.equal(thinking, 'I should look the weather up.');
    assert.deepEqual([JSON.parse(json), stop], [{ city: 'Paris' }, 'tool_use']);
    await assertCharged(response.headers.get('x-request-id'), formatMoney(parseMoney(cost as number)));
  });
});

describe('the OpenAI SDK (Responses) on a Gemini upstream', () => {
  it('a function call round trip, streamed: the reasoning item carries the signature back onto the same call', async () => {
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.parameters, strict: false }];
    const { data, response } = await openai().responses.create({ model: MODEL, input: 'Weather in Paris?', tools, stream: true }).withResponse();
    let completed: OpenAI.Responses.Response | null = null;
    for await (const event of data) if (event.type === 'response.completed') completed = event.response;
    assert.ok(completed !== null);
    const call = completed.output.find((item) => item.type === 'function_call');
    assert.ok(call?.type === 'function_call', JSON.stringify(completed.output));
    assert.deepEqual([call.name, JSON.parse(call.arguments)], ['get_weather', { city: 'Paris' }]);
    await assertCharged(response.headers.get('x-request-id'), formatMoney(parseMoney((completed.usage as { cost?: number } | undefined)?.cost ?? -1)));
    const second = await openai().responses.create({
      model: MODEL,
      tools,
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        ...(completed.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: '18 degrees and sunny' },
      ],
    });
    assert.equal(second.output_text, 'It is sunny in Paris.');
    const { call: sent } = secondCall();
    assert.equal(sent['thoughtSignature'], SIGNATURE, 'Gemini\'s own signature, back on the call it signed');
  });
});

describe('upstream errors reach each client in its own API', () => {
  it('a 429 with a retry delay and a 400: OpenAI\'s and Anthropic\'s errors, with the status and the wait', async () => {
    fake.reply = () => ({
      kind: 'status',
      status: 429,
      body: { error: { code: 429, message: 'Resource has been exhausted.', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }] } },
    });
    const limited = await openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }).catch((err: unknown) => err);
    assert.ok(limited instanceof OpenAI.APIError && limited.status === 429, String(limited));
    const anthropicLimited = await anthropic().messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).catch((err: unknown) => err);
    assert.ok(anthropicLimited instanceof Anthropic.APIError && anthropicLimited.status === 429, String(anthropicLimited));
    fake.reply = () => ({ kind: 'status', status: 400, body: { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } } });
    const bad = await openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }).catch((err: unknown) => err);
    assert.ok(bad instanceof OpenAI.APIError && bad.status === 400, String(bad));
    assert.match(bad.message, /invalid argument/);
  });
});
