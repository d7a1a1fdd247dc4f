// The price where the client sees it, over real HTTP with the official SDKs: every whole answer of a metered route
// carries x-gateway-cost, and every stream a `cost` beside its final usage, and each equals the charge of that request
// in the store (its usage record, which the ledger charges) to the nano-unit: 100 requests over every metered route
// (Chat, Responses, Messages, native and translated, streamed and not, /compact, legacy completions, Gemini's
// generateContent, embeddings, image generations and edits), on SQLite. Every answer an upstream took part in carries x-gateway-overhead-ms.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import { auditBooks } from '../../core/money/audit.js';
import { formatMoney, parseMoney } from '../../core/money/decimal.js';
import { FakeAnthropic, anthropicChannel } from '../helpers/fake-anthropic.js';
import { FakeGemini } from '../helpers/fake-gemini.js';
import { FakeOpenAIImages, tinyPng } from '../helpers/fake-openai-images.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { FakeResponses } from '../helpers/fake-responses.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';
const KEY = 'sk-cost-told-0123456789abcdef';
const CREDIT = '100';

/** What the client was told of one request: its id and the cost, as the header's text or the stream's number. */
interface Told {
  readonly id: string;
  /** The header's text, or the stream's cost written back as a decimal (from the JSON number the SDK parsed). */
  readonly cost: string;
  /** x-gateway-overhead-ms, when the answer carries it. */
  readonly overheadMs: string | null;
}

const claude = new FakeAnthropic('claude');
const gpt = new FakeOpenAI('gpt');
const responses = new FakeResponses('resp');
const images = new FakeOpenAIImages('img');
const gemini = new FakeGemini('AIza-cost-told-0123456789');
let gw: GatewayUnderTest;

before(async () => {
  await Promise.all([claude.start(), gpt.start(), responses.start(), images.start(), gemini.start()]);
  // A multiplier that is not 1 and prices with several decimals: the cost is rounded once, up, and must still match.
  gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "claude-*": { input: 3, output: 15, cache_read: 0.30, cache_write: 3.75 }
    "gpt-4o": { input: 2.50, output: 10.00, cache_read: 1.25 }
    "gpt-5.4": { input: 1.25, output: 10, cache_read: 0.125 }
    "gpt-image-1": { input: 5, output: 40, input_image: 10, per_image: 0.0013 }
    "demo-embed": { input: 0.13 }
    "gemini-2.5-pro": { input: 1.25, output: 10, cache_read: 0.31 }
    "demo-*": { input: 0.7, output: 2.1 }
groups:
  pro: { models: ["*"], price_multiplier: 1.07 }
accounts:
  - name: acme
keys:
  - { name: metered, key: ${KEY}, group: pro, account: acme }
channels:
${anthropicChannel('claude', claude.url)}  - { name: gpt, type: openai, base_url: "${gpt.url}", keys: [sk-oai-0123456789], models: ["gpt-4o"], formats: [openai-chat] }
  - { name: resp, type: openai, base_url: "${responses.url}", keys: [sk-resp-0123456789], models: ["gpt-5.4"], formats: [openai-responses] }
  - { name: img, type: openai, base_url: "${images.url}", keys: [sk-img-0123456789], models: ["gpt-image-*"], formats: [openai-images] }
  - { name: google, type: gemini, base_url: "${gemini.url}", keys: [AIza-cost-told-0123456789], models: ["gemini-*"] }
  - { name: demo, type: mock, models: ["demo-*"] }
`);
  const credit = await fetch(`${gw.url}/admin/accounts/acme/credit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: CREDIT, idempotency_key: 'start' }),
  });
  assert.equal(credit.status, 201);
});

after(async () => {
  await gw.stop();
  await Promise.all([claude.close(), gpt.close(), responses.close(), images.close(), gemini.close()]);
});

const openai = (): OpenAI => new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = (): Anthropic => new Anthropic({ apiKey: KEY, baseURL: gw.url, maxRetries: 0 });
const google = (): GoogleGenAI => new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: gw.url, retryOptions: { attempts: 1 } } });

/** What a whole answer's headers told. */
function fromHeaders(response: Response): Told {
  const cost = response.headers.get('x-gateway-cost');
  assert.ok(cost !== null, `no x-gateway-cost on ${response.url}`);
  return { id: response.headers.get('x-request-id') ?? '', cost, overheadMs: response.headers.get('x-gateway-overhead-ms') };
}

/** What a stream told: the cost of its final usage event (a JSON number, read back as a decimal), and its headers. */
function fromStream(response: Response, cost: unknown): Told {
  assert.equal(response.headers.get('x-gateway-cost'), null, 'a stream carries its cost in its final usage, not in a header');
  assert.equal(typeof cost, 'number', `no usage.cost in the stream of ${response.url}`);
  return { id: response.headers.get('x-request-id') ?? '', cost: formatMoney(parseMoney(cost as number)), overheadMs: response.headers.get('x-gateway-overhead-ms') };
}

function costOf(usage: unknown): unknown {
  return (usage as { cost?: unknown } | null | undefined)?.cost;
}

async function chat(model: string, stream: boolean): Promise<Told> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'what does it cost?' }];
  if (!stream) return fromHeaders((await openai().chat.completions.create({ model, max_tokens: 64, messages }).withResponse()).response);
  const { data, response } = await openai().chat.completions.create({ model, max_tokens: 64, messages, stream: true, stream_options: { include_usage: true } }).withResponse();
  let cost: unknown;
  for await (const chunk of data) if (chunk.usage !== null && chunk.usage !== undefined) cost = costOf(chunk.usage);
  return fromStream(response, cost);
}

async function messages(model: string, stream: boolean): Promise<Told> {
  const body = { model, max_tokens: 64, messages: [{ role: 'user' as const, content: 'what does it cost?' }] };
  if (!stream) return fromHeaders((await anthropic().messages.create(body).withResponse()).response);
  const { data, response } = await anthropic().messages.create({ ...body, stream: true }).withResponse();
  let cost: unknown;
  for await (const event of data) if (event.type === 'message_delta') cost = costOf(event.usage);
  return fromStream(response, cost);
}

async function respond(model: string, stream: boolean): Promise<Told> {
  if (!stream) return fromHeaders((await openai().responses.create({ model, input: 'what does it cost?', max_output_tokens: 64 }).withResponse()).response);
  const { data, response } = await openai().responses.create({ model, input: 'what does it cost?', max_output_tokens: 64, stream: true }).withResponse();
  let cost: unknown;
  for await (const event of data) if (event.type === 'response.completed') cost = costOf(event.response.usage);
  return fromStream(response, cost);
}

async function compact(): Promise<Told> {
  const res = await fetch(`${gw.url}/v1/responses/compact`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-5.4', input: [{ role: 'user', content: 'a long conversation' }] }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  return fromHeaders(res);
}

async function complete(model: string, stream: boolean): Promise<Told> {
  if (!stream) return fromHeaders((await openai().completions.create({ model, prompt: 'what does it cost?', max_tokens: 32 }).withResponse()).response);
  const { data, response } = await openai().completions.create({ model, prompt: 'what does it cost?', max_tokens: 32, stream: true, stream_options: { include_usage: true } }).withResponse();
  let cost: unknown;
  for await (const chunk of data) if (chunk.usage !== null && chunk.usage !== undefined) cost = costOf(chunk.usage);
  return fromStream(response, cost);
}

/** Gemini's generateContent: the header of a whole answer, or the stream's last usageMetadata.cost. */
async function generate(model: string, stream: boolean): Promise<Told> {
  const contents = 'what does it cost?';
  if (!stream) {
    const answer = await google().models.generateContent({ model, contents, config: { maxOutputTokens: 64 } });
    const headers = answer.sdkHttpResponse?.headers ?? {};
    const cost = headers['x-gateway-cost'];
    assert.ok(cost !== undefined, `no x-gateway-cost on ${model}`);
    return { id: headers['x-request-id'] ?? '', cost, overheadMs: headers['x-gateway-overhead-ms'] ?? null };
  }
  let cost: unknown;
  let headers: Record<string, string> = {};
  for await (const chunk of await google().models.generateContentStream({ model, contents, config: { maxOutputTokens: 64 } })) {
    headers = chunk.sdkHttpResponse?.headers ?? headers;
    cost = costOf(chunk.usageMetadata) ?? cost;
  }
  assert.equal(headers['x-gateway-cost'], undefined, 'a stream carries its cost in its final usage, not in a header');
  assert.equal(typeof cost, 'number', `no usageMetadata.cost in the stream of ${model}`);
  return { id: headers['x-request-id'] ?? '', cost: formatMoney(parseMoney(cost as number)), overheadMs: headers['x-gateway-overhead-ms'] ?? null };
}

/** Each kind of request, by name; the run below goes round them. */
const KINDS: readonly [string, () => Promise<Told>][] = [
  ['chat', () => chat('gpt-4o', false)],
  ['chat, stream', () => chat('gpt-4o', true)],
  ['chat on Messages, translated', () => chat('claude-cost-test', false)],
  ['chat on Messages, translated, stream', () => chat('claude-cost-test', true)],
  ['chat on the mock, stream', () => chat('demo-fast', true)],
  ['messages', () => messages('claude-cost-test', false)],
  ['messages, stream', () => messages('claude-cost-test', true)],
  ['messages on Chat, translated', () => messages('gpt-4o', false)],
  ['messages on Chat, translated, stream', () => messages('gpt-4o', true)],
  ['responses', () => respond('gpt-5.4', false)],
  ['responses, stream', () => respond('gpt-5.4', true)],
  ['responses on Messages, translated, stream', () => respond('claude-cost-test', true)],
  ['responses on Chat, translated', () => respond('gpt-4o', false)],
  ['responses/compact', compact],
  ['legacy completions on the mock', () => complete('demo-instruct', false)],
  ['legacy completions on the mock, stream', () => complete('demo-instruct', true)],
  ['gemini on the mock', () => generate('demo-gemini', false)],
  ['gemini on the mock, stream', () => generate('demo-gemini', true)],
  ['gemini', () => generate('gemini-2.5-pro', false)],
  ['gemini, stream', () => generate('gemini-2.5-pro', true)],
  ['gemini on Chat, translated', () => generate('gpt-4o', false)],
  ['gemini on Messages, translated, stream', () => generate('claude-cost-test', true)],
  ['chat on Gemini, translated, stream', () => chat('gemini-2.5-pro', true)],
  ['messages on Gemini, translated', () => messages('gemini-2.5-pro', false)],
  ['responses on Gemini, translated, stream', () => respond('gemini-2.5-pro', true)],
  ['embeddings', async () => fromHeaders((await openai().embeddings.create({ model: 'demo-embed', input: ['a lighthouse', 'at dawn'] }).withResponse()).response)],
  ['image generation', async () => fromHeaders((await openai().images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse', n: 1, size: '1024x1024' }).withResponse()).response)],
  [
    'image edit',
    async () => fromHeaders((await openai().images.edit({ model: 'gpt-image-1', image: await toFile(tinyPng(10), 'photo.png', { type: 'image/png' }), prompt: 'add a balloon' }).withResponse()).response),
  ],
];

describe('the price told to the client', () => {
  it('equals the charge of each request, for 100 requests over every metered route, and the balance drops by their sum', async () => {
    const told: [string, Told][] = [];
    // Four at a time: requests in flight together, as a client's are.
    for (let i = 0; i < 100; i += 4) {
      const batch = [i, i + 1, i + 2, i + 3].map((n) => KINDS[n % KINDS.length] as [string, () => Promise<Told>]);
      told.push(...(await Promise.all(batch.map(async ([kind, send]): Promise<[string, Told]> => [kind, await send()]))));
    }
    assert.equal(told.length, 100);
    const records = new Map((await gw.usage()).map((r) => [r.requestId, r]));
    let sum = 0n;
    for (const [kind, { id, cost, overheadMs }] of told) {
      const record = records.get(id);
      assert.ok(record !== undefined, `${kind}: no record for ${id}`);
      assert.equal(record.status, 200, kind);
      assert.ok((record.cost ?? 0n) > 0n, `${kind}: priced`);
      assert.equal(cost, formatMoney(record.cost ?? -1n), `${kind} (${id}): told ${cost}, charged ${formatMoney(record.cost ?? 0n)}`);
      assert.equal(record.account, 'acme', kind);
      assert.match(overheadMs ?? '', /^\d+(\.\d{1,3})?$/, `${kind}: x-gateway-overhead-ms`);
      assert.ok(Number(overheadMs) < (record.latencyMs ?? 0) + 1, `${kind}: the gateway's part is part of the whole`);
      sum += record.cost ?? 0n;
    }
    const account = await gw.gateway.runtime.deps.store.ledger.getAccount('acme');
    assert.equal(account?.balance, parseMoney(CREDIT) - sum, 'the ledger charged exactly what the clients were told');
    assert.deepEqual((await auditBooks(gw.gateway.runtime.deps.store)).problems, []);
  });
});
