// POST /v1/completions through an `openai` channel, over real HTTP on loopback, with the official openai SDK: the
// upstream gets the client's bytes and the client the upstream's, whole answers and streams alike; a stream whose
// client did not ask for usage is asked for it upstream, and its usage chunk kept from the client; the usage record
// holds the upstream's prompt and completion tokens and its cost is exactly prompt tokens x input price + completion
// tokens x output price, taken from the account's balance; a bad body is a 400 in OpenAI's shape that reaches no
// upstream and changes nothing; a metered key whose balance cannot cover the reservation (max_tokens for each of n
// choices) gets 402; GET /v1/models lists the model.

import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { formatMoney, parseMoney } from '../../core/money/decimal.js';
import { FakeModelList } from '../../test/helpers/fake-model-list.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';
import { LoopbackHttpServer, recordRequest, streamFrames, type RecordedRequest } from '../../test/helpers/loopback-http-server.js';

const ADMIN = 'test-admin-token-0123456789';
const METERED = 'sk-cmpl-metered-0123456789abc';
const BROKE = 'sk-cmpl-broke-0123456789abcde';
const THIN = 'sk-cmpl-thin-0123456789abcdef';
/** gpt-3.5-turbo-instruct's list prices: $1.50 per 1M input tokens, $2.00 per 1M output tokens. */
const INPUT_PRICE = '1.5';
const OUTPUT_PRICE = '2';
const MODEL = 'gpt-3.5-turbo-instruct';
/** The fake's completion, one token a piece, cut at max_tokens. */
const FAKE_PIECES = [' This', ' is', ' indeed', ' a', ' test', '.'];
/** The fake reports this many prompt tokens per prompt. */
const TOKENS_PER_PROMPT = 9;

/** How many prompts `prompt` holds, as OpenAI reads it. */
function promptCount(prompt: unknown): number {
  return Array.isArray(prompt) && typeof prompt[0] !== 'number' ? prompt.length : 1;
}

/**
 * An OpenAI Completions upstream: for each prompt best_of candidates of FAKE_PIECES cut at max_tokens (16 by default),
 * n returned; usage counts every candidate; a stream sends `usage: null` on each chunk and a last chunk with no choices
 * and the usage only when stream_options.include_usage is set. Every request's bytes kept, and the last answer's.
 */
class FakeOpenAICompletions extends LoopbackHttpServer {
  readonly requests: RecordedRequest[] = [];
  readonly modelList = new FakeModelList('openai', [MODEL, 'davinci-002']);
  lastAnswer: Buffer = Buffer.alloc(0);

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await this.modelList.handle(req, res)) return;
    const recorded = await recordRequest(req);
    this.requests.push(recorded);
    const body = recorded.body;
    const prompts = promptCount(body['prompt']);
    const n = typeof body['n'] === 'number' ? body['n'] : 1;
    const bestOf = typeof body['best_of'] === 'number' ? body['best_of'] : n;
    const pieces = FAKE_PIECES.slice(0, typeof body['max_tokens'] === 'number' ? body['max_tokens'] : 16);
    const finish = pieces.length < FAKE_PIECES.length ? 'length' : 'stop';
    const usage = { prompt_tokens: prompts * TOKENS_PER_PROMPT, completion_tokens: prompts * bestOf * pieces.length, total_tokens: 0 };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    const base = { id: 'cmpl-fake123', object: 'text_completion', created: 1_760_000_000, model: body['model'] };
    const indices = Array.from({ length: prompts * n }, (_, i) => i);
    if (body['stream'] !== true) {
      const choices = indices.map((index) => ({ text: pieces.join(''), index, logprobs: null, finish_reason: finish }));
      this.lastAnswer = Buffer.from(JSON.stringify(Object.assign({}, base, { choices, usage })));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(this.lastAnswer.length) });
      res.end(this.lastAnswer);
      return;
    }
    const withUsage = (body['stream_options'] as { include_usage?: unknown } | undefined)?.include_usage === true;
    const frame = (choices: unknown[], last?: unknown): string => `data: ${JSON.stringify(Object.assign({}, base, { choices }, withUsage ? { usage: last ?? null } : {}))}\n\n`;
    const frames = [
      ...pieces.flatMap((text) => indices.map((index) => frame([{ text, index, logprobs: null, finish_reason: null }]))),
      ...indices.map((index) => frame([{ text: '', index, logprobs: null, finish_reason: finish }])),
      ...(withUsage ? [frame([], usage)] : []),
      'data: [DONE]\n\n',
    ];
    this.lastAnswer = await streamFrames(res, {}, frames, {});
  }
}

/** What the client sent and got, as bytes: recorded by the fetch the SDK is given. */
interface Exchange {
  readonly sent: Buffer;
  readonly received: Buffer;
  readonly requestId: string;
}

const fake = new FakeOpenAICompletions();
let gw: GatewayUnderTest;
const exchanges: Exchange[] = [];

async function credit(account: string, amount: string): Promise<void> {
  const res = await fetch(`${gw.url}/admin/accounts/${account}/credit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount, idempotency_key: `start-${account}` }),
  });
  assert.equal(res.status, 201);
}

before(async () => {
  await fake.start();
  gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "${MODEL}": { input: ${INPUT_PRICE}, output: ${OUTPUT_PRICE} }
    "house-instruct": { input: ${INPUT_PRICE}, output: ${OUTPUT_PRICE} }
groups:
  pro: { models: ["*"] }
accounts:
  - name: acme
  - name: broke
  - name: thin
keys:
  - { name: metered, key: ${METERED}, group: pro, account: acme }
  - { name: broke, key: ${BROKE}, group: pro, account: broke }
  - { name: thin, key: ${THIN}, group: pro, account: thin }
channels:
  - { name: oai, type: openai, base_url: "${fake.url}", keys: [sk-upstream-oai-0123456789], models: ["gpt-3.5-*", "davinci-*"], cooldown_ms: 0 }
  - { name: aliased, type: openai, base_url: "${fake.url}", keys: [sk-upstream-aliased-0123456789], models: { "house-instruct": "${MODEL}" } }
`);
  await credit('acme', '1');
  // 0.005: a reservation of 1,000 output tokens (0.002) fits, four times that does not.
  await credit('thin', '0.005');
});

beforeEach(() => {
  fake.requests.length = 0;
});

after(async () => {
  await gw.stop();
  await fake.close();
});

/** The SDK on the gateway, through a fetch that keeps the exact bytes of each request and answer (a stream's whole). */
function client(key = METERED): OpenAI {
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const sent = Buffer.from(await request.arrayBuffer());
    const res = await fetch(request.url, { method: request.method, headers: request.headers, ...(sent.length > 0 ? { body: sent } : {}) });
    const received = Buffer.from(await res.clone().arrayBuffer());
    exchanges.push({ sent, received, requestId: res.headers.get('x-request-id') ?? '' });
    return res;
  };
  return new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, fetch: recording, maxRetries: 0 });
}

function lastExchange(): Exchange {
  const last = exchanges.at(-1);
  assert.ok(last !== undefined);
  return last;
}

function lastUpstream(): RecordedRequest {
  const upstream = fake.requests.at(-1);
  assert.ok(upstream !== undefined, 'the upstream was called');
  return upstream;
}

/** The upstream got exactly the client's body, on the same path, with the channel's key (never the client's). */
function assertForwardedAsSent(): void {
  const upstream = lastUpstream();
  assert.equal(upstream.path, '/v1/completions');
  assert.equal(upstream.headers['authorization'], 'Bearer sk-upstream-oai-0123456789');
  assert.ok(upstream.raw.equals(lastExchange().sent), 'the upstream received other bytes than the client sent');
}

/** prompt x INPUT_PRICE + completion x OUTPUT_PRICE per 1M, in nano-units: exact here (no rounding to hide an error). */
function costOf(prompt: number, completion: number): bigint {
  const perMillion = BigInt(prompt) * parseMoney(INPUT_PRICE) + BigInt(completion) * parseMoney(OUTPUT_PRICE);
  assert.equal(perMillion % 1_000_000n, 0n, 'the expected cost is a whole number of nano-units');
  return perMillion / 1_000_000n;
}

async function recordOf(requestId: string): Promise<Awaited<ReturnType<GatewayUnderTest['usage']>>[number]> {
  const record = (await gw.usage()).find((r) => r.requestId === requestId);
  assert.ok(record !== undefined, `no usage record for ${requestId}`);
  return record;
}

async function balanceOf(account: string): Promise<bigint | undefined> {
  await gw.usage();
  return (await gw.gateway.runtime.deps.store.ledger.getAccount(account))?.balance;
}

/** The record of the last exchange: its tokens, not estimated, and its cost exactly theirs. */
async function assertCharged(prompt: number, completion: number): Promise<void> {
  const record = await recordOf(lastExchange().requestId);
  assert.deepEqual(
    [record.route, record.model, record.channel, record.status, record.promptTokens, record.completionTokens, record.usageEstimated ?? false, record.account],
    ['/v1/completions', MODEL, 'oai', 200, prompt, completion, false, 'acme'],
  );
  assert.equal(record.cost, costOf(prompt, completion));
}

describe('POST /v1/completions through an openai channel', () => {
  it('a whole answer, every documented field sent: bytes relayed both ways, usage and charge exact, the balance down by it', async () => {
    const before = await balanceOf('acme');
    const answer = await client().completions.create({
      model: MODEL,
      prompt: 'Say this is a test',
      suffix: ' Done.',
      max_tokens: 5,
      temperature: 0,
      top_p: 1,
      n: 1,
      logprobs: null,
      echo: false,
      stop: ['\n', '###'],
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      logit_bias: { '50256': -100 },
      user: 'user-1234',
      seed: 42,
    });
    assertForwardedAsSent();
    assert.ok(lastExchange().received.equals(fake.lastAnswer), 'the client received other bytes than the upstream sent');
    assert.deepEqual(answer.choices, [{ text: ' This is indeed a test', index: 0, logprobs: null, finish_reason: 'length' }]);
    assert.deepEqual(answer.usage, { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 });
    await assertCharged(9, 5);
    assert.equal(await balanceOf('acme'), (before ?? 0n) - costOf(9, 5), 'the balance drops by exactly the charge');
  });

  it('prompts of token ids with n and best_of: relayed as sent, every candidate the upstream counts charged', async () => {
    const answer = await client().completions.create({ model: MODEL, prompt: [[1212, 318], [257, 1332, 13]], n: 2, best_of: 3 });
    assertForwardedAsSent();
    assert.ok(lastExchange().received.equals(fake.lastAnswer));
    assert.deepEqual(answer.choices.map((c) => c.index), [0, 1, 2, 3]);
    // 2 prompts x 9; 2 prompts x 3 candidates x 6 pieces.
    await assertCharged(18, 36);
  });

  it('a stream with include_usage: the same bytes both ways, the usage chunk to the client, the charge exact', async () => {
    const stream = await client().completions.create({ model: MODEL, prompt: ['one', 'two'], max_tokens: 4, stream: true, stream_options: { include_usage: true } });
    let text = '';
    const usages: unknown[] = [];
    for await (const chunk of stream) {
      for (const choice of chunk.choices) if (choice.index === 1) text += choice.text;
      if (chunk.usage !== null && chunk.usage !== undefined) usages.push(chunk.usage);
    }
    assert.equal(text, ' This is indeed a');
    // The usage chunk tells the charge beside the counts (usage.cost, docs/money.md); every other byte is the upstream's.
    const told = formatMoney(costOf(18, 8));
    assert.deepEqual(usages, [{ prompt_tokens: 18, completion_tokens: 8, total_tokens: 26, cost: Number(told) }]);
    assertForwardedAsSent();
    assert.equal(lastExchange().received.toString().replace(`,"cost":${told}}`, '}'), fake.lastAnswer.toString(), 'the client received other bytes than the upstream streamed');
    await assertCharged(18, 8);
  });

  it('a stream without include_usage: asked upstream, its usage chunk kept from the client, every other byte relayed, the charge exact', async () => {
    const stream = await client().completions.create({ model: MODEL, prompt: 'Once upon a time', stream: true });
    let text = '';
    for await (const chunk of stream) {
      assert.equal(chunk.usage ?? null, null);
      for (const choice of chunk.choices) text += choice.text;
    }
    assert.equal(text, FAKE_PIECES.join(''));
    const sent = JSON.parse(lastExchange().sent.toString()) as Record<string, unknown>;
    assert.equal(sent['stream_options'], undefined);
    assert.deepEqual(lastUpstream().body, Object.assign({}, sent, { stream_options: { include_usage: true } }), 'only include_usage was added');
    const frames = fake.lastAnswer.toString().split('\n\n');
    const usageFrame = frames.findIndex((f) => f.includes('"choices":[]'));
    assert.ok(usageFrame > 0, 'the upstream sent its usage chunk');
    const withoutUsage = [...frames.slice(0, usageFrame), ...frames.slice(usageFrame + 1)].join('\n\n');
    assert.equal(lastExchange().received.toString(), withoutUsage, 'the client got the upstream\'s bytes but the usage chunk');
    await assertCharged(9, 6);
  });

  it('a model alias: the upstream gets its own name in the body, the rest as sent; the record names both', async () => {
    await client().completions.create({ model: 'house-instruct', prompt: 'hello', max_tokens: 2 });
    const upstream = lastUpstream();
    assert.equal(upstream.headers['authorization'], 'Bearer sk-upstream-aliased-0123456789');
    const sent = JSON.parse(lastExchange().sent.toString()) as Record<string, unknown>;
    assert.deepEqual(upstream.body, Object.assign({}, sent, { model: MODEL }));
    const record = await recordOf(lastExchange().requestId);
    assert.deepEqual([record.model, record.upstreamModel, record.channel, record.cost], ['house-instruct', MODEL, 'aliased', costOf(9, 2)]);
  });

  it('refuses a bad body with a 400 in OpenAI\'s shape: no upstream call, no record, no charge', async () => {
    const bad: [string, string, string | null][] = [
      ['no model', JSON.stringify({ prompt: 'hi' }), 'model'],
      ['a model that is no string', JSON.stringify({ model: 7, prompt: 'hi' }), 'model'],
      ['prompt a number', JSON.stringify({ model: MODEL, prompt: 5 }), 'prompt'],
      ['an empty prompt array', JSON.stringify({ model: MODEL, prompt: [] }), 'prompt'],
      ['texts and token arrays mixed', JSON.stringify({ model: MODEL, prompt: ['a', [1]] }), 'prompt[1]'],
      ['a negative token id', JSON.stringify({ model: MODEL, prompt: [[1, -1]] }), 'prompt[0][1]'],
      ['an empty token array', JSON.stringify({ model: MODEL, prompt: [[1], []] }), 'prompt[1]'],
      ['n 0', JSON.stringify({ model: MODEL, prompt: 'hi', n: 0 }), 'n'],
      ['max_tokens a string', JSON.stringify({ model: MODEL, prompt: 'hi', max_tokens: '16' }), 'max_tokens'],
      ['max_tokens negative', JSON.stringify({ model: MODEL, prompt: 'hi', max_tokens: -1 }), 'max_tokens'],
      ['best_of fractional', JSON.stringify({ model: MODEL, prompt: 'hi', best_of: 1.5 }), 'best_of'],
      ['stream a string', JSON.stringify({ model: MODEL, prompt: 'hi', stream: 'true' }), 'stream'],
      ['include_usage a string', JSON.stringify({ model: MODEL, prompt: 'hi', stream: true, stream_options: { include_usage: 'yes' } }), 'stream_options.include_usage'],
      ['echo a number', JSON.stringify({ model: MODEL, prompt: 'hi', echo: 1 }), 'echo'],
      ['a stop that is no string', JSON.stringify({ model: MODEL, prompt: 'hi', stop: [7] }), 'stop[0]'],
      ['max_tokens given twice', `{"model":"${MODEL}","prompt":"hi","max_tokens":1,"max_tokens":4000}`, 'max_tokens'],
      ['not JSON', '{"model":', null],
      ['an array body', '["hi"]', null],
    ];
    const records = (await gw.usage()).length;
    const balance = await balanceOf('acme');
    for (const [what, body, param] of bad) {
      const res = await fetch(`${gw.url}/v1/completions`, { method: 'POST', headers: { authorization: `Bearer ${METERED}`, 'content-type': 'application/json' }, body });
      const answer = (await res.json()) as { error?: { type?: unknown; param?: unknown; message?: unknown } };
      assert.equal(res.status, 400, `${what}: ${JSON.stringify(answer)}`);
      assert.equal(answer.error?.type, 'invalid_request_error', what);
      assert.equal(typeof answer.error?.message, 'string', what);
      assert.equal(answer.error?.param, param, what);
    }
    assert.equal(fake.requests.length, 0, 'no bad body reached the upstream');
    assert.equal((await gw.usage()).length, records, 'no record was written');
    assert.equal(await balanceOf('acme'), balance, 'nothing was charged');
  });

  it('a metered key whose balance cannot cover the request: 402 before any upstream call, nothing charged', async () => {
    const err = await client(BROKE)
      .completions.create({ model: MODEL, prompt: 'hello', max_tokens: 1 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(err instanceof OpenAI.APIError, String(err));
    assert.equal(err.status, 402);
    assert.equal(err.code, 'insufficient_balance');
    assert.equal(fake.requests.length, 0);
    assert.equal(await balanceOf('broke'), 0n);
  });

  it('the reservation is max_tokens for each of n choices: the same request fits once and is refused four times over', async () => {
    const one = await client(THIN).completions.create({ model: MODEL, prompt: 'hello', max_tokens: 1000 });
    assert.equal(one.usage?.completion_tokens, 6);
    assert.equal(fake.requests.length, 1);
    const err = await client(THIN)
      .completions.create({ model: MODEL, prompt: 'hello', max_tokens: 1000, n: 4 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(err instanceof OpenAI.APIError && err.status === 402, String(err));
    assert.equal(fake.requests.length, 1, 'the refused request reached no upstream');
  });

  it('GET /v1/models lists the completion models the key may call', async () => {
    await gw.modelsDiscovered();
    const ids = (await client().models.list()).data.map((m) => m.id);
    assert.ok(ids.includes(MODEL) && ids.includes('davinci-002'), ids.join(', '));
  });
});
