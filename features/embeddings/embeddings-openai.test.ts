// POST /v1/embeddings through an `openai` channel, over real HTTP on loopback, with the official openai SDK: the
// upstream gets the client's bytes and the client the upstream's (base64, the SDK's default, and float alike); the
// usage record holds the upstream's prompt_tokens and its cost is exactly those tokens at the model's input price,
// taken from the account's balance; a bad body is a 400 in OpenAI's shape that reaches no upstream and changes
// nothing; a metered key whose balance cannot cover the request gets 402; GET /v1/models lists the model.

import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { parseMoney } from '../../core/money/decimal.js';
import { FakeModelList } from '../../test/helpers/fake-model-list.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';
import { LoopbackHttpServer, recordRequest, type RecordedRequest } from '../../test/helpers/loopback-http-server.js';

const ADMIN = 'test-admin-token-0123456789';
const METERED = 'sk-embed-metered-0123456789ab';
const BROKE = 'sk-embed-broke-0123456789abcd';
/** text-embedding-3-small's list price: $0.02 per 1M input tokens. */
const INPUT_PRICE = '0.02';
/** The fake's vector for every input: float32 values exactly, so JSON and base64 carry the same numbers. */
const FAKE_VECTOR = [0.5, -0.25, 0.125, 1.5, -2, 0.0625, 3, -0.75];
/** The fake reports this many prompt tokens per input. */
const TOKENS_PER_INPUT = 7;

/** An OpenAI embeddings upstream: each input gets FAKE_VECTOR, as floats or base64 as asked; every request's bytes kept. */
class FakeOpenAIEmbeddings extends LoopbackHttpServer {
  readonly requests: RecordedRequest[] = [];
  readonly modelList = new FakeModelList('openai', ['text-embedding-3-small', 'text-embedding-3-large']);
  /** The exact bytes of the last answer. */
  lastAnswer = Buffer.alloc(0);

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await this.modelList.handle(req, res)) return;
    const recorded = await recordRequest(req);
    this.requests.push(recorded);
    const { input, model, encoding_format: format } = recorded.body;
    const count = Array.isArray(input) && typeof input[0] !== 'number' ? input.length : 1;
    const base64 = Buffer.alloc(FAKE_VECTOR.length * 4);
    FAKE_VECTOR.forEach((value, i) => base64.writeFloatLE(value, i * 4));
    const embedding = format === 'base64' ? base64.toString('base64') : FAKE_VECTOR;
    const data = Array.from({ length: count }, (_, index) => ({ object: 'embedding', index, embedding }));
    const tokens = count * TOKENS_PER_INPUT;
    this.lastAnswer = Buffer.from(JSON.stringify({ object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(this.lastAnswer.length) });
    res.end(this.lastAnswer);
  }
}

/** What the client sent and got, as bytes: recorded by the fetch the SDK is given. */
interface Exchange {
  readonly sent: Buffer;
  readonly received: Buffer;
  readonly requestId: string;
}

const fake = new FakeOpenAIEmbeddings();
let gw: GatewayUnderTest;
const exchanges: Exchange[] = [];

before(async () => {
  await fake.start();
  gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  models:
    "text-embedding-3-small": { input: ${INPUT_PRICE} }
    "house-embed": { input: ${INPUT_PRICE} }
groups:
  pro: { models: ["*"] }
accounts:
  - name: acme
  - name: broke
keys:
  - { name: metered, key: ${METERED}, group: pro, account: acme }
  - { name: broke, key: ${BROKE}, group: pro, account: broke }
channels:
  - { name: oai, type: openai, base_url: "${fake.url}", keys: [sk-upstream-oai-0123456789], models: ["text-embedding-*"], cooldown_ms: 0 }
  - { name: aliased, type: openai, base_url: "${fake.url}", keys: [sk-upstream-aliased-0123456789], models: { "house-embed": "text-embedding-3-small" } }
`);
  const credit = await fetch(`${gw.url}/admin/accounts/acme/credit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: '1', idempotency_key: 'start' }),
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

/** The SDK on the gateway, through a fetch that keeps the exact bytes of each request and answer. */
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

/** The upstream got exactly the client's body, on the same path, with the channel's key (never the client's). */
function assertForwardedAsSent(): void {
  const upstream = fake.requests.at(-1);
  assert.ok(upstream !== undefined, 'the upstream was called');
  assert.equal(upstream.path, '/v1/embeddings');
  assert.equal(upstream.headers['authorization'], 'Bearer sk-upstream-oai-0123456789');
  assert.ok(upstream.raw.equals(lastExchange().sent), 'the upstream received other bytes than the client sent');
  assert.ok(lastExchange().received.equals(fake.lastAnswer), 'the client received other bytes than the upstream sent');
}

/** `tokens` at INPUT_PRICE per 1M, in nano-units: exact for the counts used here (no rounding to hide an error). */
function costOf(tokens: number): bigint {
  const perMillion = BigInt(tokens) * parseMoney(INPUT_PRICE);
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

describe('POST /v1/embeddings through an openai channel', () => {
  it('the SDK default (base64, decoded by the SDK): bytes relayed both ways, usage and charge exact', async () => {
    const before = await balanceOf('acme');
    const answer = await client().embeddings.create({ model: 'text-embedding-3-small', input: ['The quick brown fox', 'jumped over the lazy dog'] });
    assertForwardedAsSent();
    assert.equal(JSON.parse(lastExchange().sent.toString())['encoding_format'], 'base64', 'the SDK asks for base64 by default');
    assert.deepEqual(
      answer.data.map((d) => [d.index, d.embedding]),
      [
        [0, FAKE_VECTOR],
        [1, FAKE_VECTOR],
      ],
    );
    assert.deepEqual(answer.usage, { prompt_tokens: 2 * TOKENS_PER_INPUT, total_tokens: 2 * TOKENS_PER_INPUT });
    const record = await recordOf(lastExchange().requestId);
    assert.deepEqual(
      [record.route, record.model, record.channel, record.status, record.promptTokens, record.completionTokens, record.usageEstimated ?? false, record.account],
      ['/v1/embeddings', 'text-embedding-3-small', 'oai', 200, 14, 0, false, 'acme'],
    );
    assert.equal(record.cost, costOf(14));
    assert.equal(await balanceOf('acme'), (before ?? 0n) - costOf(14), 'the balance drops by exactly the charge');
  });

  it('encoding_format float, and base64 asked explicitly (left encoded by the SDK): relayed as they are, charged alike', async () => {
    const floats = await client().embeddings.create({ model: 'text-embedding-3-small', input: 'one text', encoding_format: 'float' });
    assertForwardedAsSent();
    assert.deepEqual(floats.data[0]?.embedding, FAKE_VECTOR);
    assert.equal((await recordOf(lastExchange().requestId)).cost, costOf(TOKENS_PER_INPUT));

    const encoded = await client().embeddings.create({ model: 'text-embedding-3-small', input: [[1, 2, 3], [4, 5]], encoding_format: 'base64' });
    assertForwardedAsSent();
    const text = encoded.data[0]?.embedding as unknown as string;
    const bytes = Buffer.from(text, 'base64');
    assert.deepEqual(
      Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4)),
      FAKE_VECTOR,
    );
    const record = await recordOf(lastExchange().requestId);
    assert.deepEqual([record.promptTokens, record.cost], [2 * TOKENS_PER_INPUT, costOf(2 * TOKENS_PER_INPUT)]);
  });

  it('a model alias: the upstream gets its own name in the body, the rest as sent; the record names both', async () => {
    await client().embeddings.create({ model: 'house-embed', input: 'hello', encoding_format: 'float' });
    const upstream = fake.requests.at(-1);
    assert.ok(upstream !== undefined);
    assert.equal(upstream.headers['authorization'], 'Bearer sk-upstream-aliased-0123456789');
    const sent = JSON.parse(lastExchange().sent.toString()) as Record<string, unknown>;
    assert.deepEqual(upstream.body, Object.assign({}, sent, { model: 'text-embedding-3-small' }));
    const record = await recordOf(lastExchange().requestId);
    assert.deepEqual([record.model, record.upstreamModel, record.channel, record.cost], ['house-embed', 'text-embedding-3-small', 'aliased', costOf(TOKENS_PER_INPUT)]);
  });

  it('refuses a bad body with a 400 in OpenAI\'s shape: no upstream call, no record, no charge', async () => {
    const bad: [string, string, string | null][] = [
      ['no input', JSON.stringify({ model: 'text-embedding-3-small' }), 'input'],
      ['no model', JSON.stringify({ input: 'hi' }), 'model'],
      ['input a number', JSON.stringify({ model: 'text-embedding-3-small', input: 5 }), 'input'],
      ['input null', JSON.stringify({ model: 'text-embedding-3-small', input: null }), 'input'],
      ['an empty string', JSON.stringify({ model: 'text-embedding-3-small', input: '' }), 'input'],
      ['an empty array', JSON.stringify({ model: 'text-embedding-3-small', input: [] }), 'input'],
      ['an empty string among texts', JSON.stringify({ model: 'text-embedding-3-small', input: ['a', ''] }), 'input[1]'],
      ['texts and token arrays mixed', JSON.stringify({ model: 'text-embedding-3-small', input: ['a', [1]] }), 'input[1]'],
      ['an object among texts', JSON.stringify({ model: 'text-embedding-3-small', input: [{ text: 'a' }] }), 'input[0]'],
      ['a negative token id', JSON.stringify({ model: 'text-embedding-3-small', input: [[1, -1]] }), 'input[0][1]'],
      ['a fractional token id', JSON.stringify({ model: 'text-embedding-3-small', input: [1.5] }), 'input[0]'],
      ['an empty token array', JSON.stringify({ model: 'text-embedding-3-small', input: [[1], []] }), 'input[1]'],
      ['a model that is no string', JSON.stringify({ model: 7, input: 'hi' }), 'model'],
      ['model given twice', '{"model":"text-embedding-3-small","input":"hi","model":"text-embedding-3-large"}', 'model'],
      ['not JSON', '{"model":', null],
      ['an array body', '["hi"]', null],
    ];
    const records = (await gw.usage()).length;
    const balance = await balanceOf('acme');
    for (const [what, body, param] of bad) {
      const res = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${METERED}`, 'content-type': 'application/json' }, body });
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
      .embeddings.create({ model: 'text-embedding-3-small', input: 'hello' })
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

  it('GET /v1/models lists the embedding models the key may call', async () => {
    await gw.modelsDiscovered();
    const ids = (await client().models.list()).data.map((m) => m.id);
    assert.ok(ids.includes('text-embedding-3-small') && ids.includes('text-embedding-3-large'), ids.join(', '));
  });
});
