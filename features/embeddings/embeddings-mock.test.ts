// POST /v1/embeddings answered by the `mock` channel, over real HTTP on loopback, with the official openai SDK: the
// same input gets the same unit vector and another input another; floats and base64 carry the same float32 values;
// `dimensions` shortens the vector as OpenAI does; usage counts the tokens embedded, and the record's cost is those
// tokens at the model's input price. What the real API refuses, the mock refuses in OpenAI's shape.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { parseMoney } from '../../core/money/decimal.js';
import { LIMITED_KEY, TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';

/** Per 1M input tokens: a price whose cost per token is a whole number of nano-units. */
const INPUT_PRICE = '0.13';

let gw: GatewayUnderTest;

before(async () => {
  gw = await startGatewayUnderTest(
    configWith(
      `  - name: demo
    type: mock
    models: ["demo-*", "text-embedding-*"]
`,
      `pricing:
  models:
    "demo-embed": { input: ${INPUT_PRICE} }
    "text-embedding-3-large": { input: ${INPUT_PRICE} }
`,
    ),
  );
});

after(async () => {
  await gw.stop();
});

function client(key = TEST_KEY): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
}

function length(vector: readonly number[]): number {
  return Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
}

function decodeBase64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

describe('POST /v1/embeddings on the mock channel', () => {
  it('one deterministic unit vector per input; the SDK default (base64) and float give the same numbers', async () => {
    const input = ['The quick brown fox', 'jumped over the lazy dog', 'The quick brown fox'];
    const decoded = await client().embeddings.create({ model: 'demo-embed', input });
    const floats = await client().embeddings.create({ model: 'demo-embed', input, encoding_format: 'float' });
    assert.equal(decoded.object, 'list');
    assert.equal(decoded.model, 'demo-embed');
    assert.deepEqual(
      decoded.data.map((d) => [d.object, d.index, d.embedding.length]),
      [
        ['embedding', 0, 1536],
        ['embedding', 1, 1536],
        ['embedding', 2, 1536],
      ],
    );
    assert.deepEqual(floats.data, decoded.data, 'float32 values as JSON numbers are the base64 ones');
    const [fox, dog, foxAgain] = decoded.data.map((d) => d.embedding);
    assert.ok(fox !== undefined && dog !== undefined);
    assert.deepEqual(foxAgain, fox, 'the same input, the same vector');
    assert.notDeepEqual(dog, fox, 'another input, another vector');
    for (const v of [fox, dog]) assert.ok(Math.abs(length(v) - 1) < 1e-5, `length ${length(v)}`);
    // Four characters a token: 19 -> 5, 24 -> 6, 19 -> 5.
    assert.deepEqual(decoded.usage, { prompt_tokens: 16, total_tokens: 16 });
  });

  it('base64 asked explicitly is the little-endian float32 bytes; dimensions shortens the vector and scales it back to length 1', async () => {
    const full = await client().embeddings.create({ model: 'demo-embed', input: 'a lighthouse', encoding_format: 'float' });
    const encoded = await client().embeddings.create({ model: 'demo-embed', input: 'a lighthouse', encoding_format: 'base64' });
    const text = encoded.data[0]?.embedding as unknown as string;
    assert.equal(typeof text, 'string');
    assert.deepEqual(decodeBase64(text), full.data[0]?.embedding);

    const short = await client().embeddings.create({ model: 'demo-embed', input: 'a lighthouse', dimensions: 256, encoding_format: 'float' });
    const vector = short.data[0]?.embedding ?? [];
    assert.equal(vector.length, 256);
    assert.ok(Math.abs(length(vector) - 1) < 1e-5);
    const prefix = (full.data[0]?.embedding ?? []).slice(0, 256);
    const scale = length(prefix);
    vector.forEach((v, i) => assert.ok(Math.abs(v - (prefix[i] as number) / scale) < 1e-6, `component ${i}`));

    const large = await client().embeddings.create({ model: 'text-embedding-3-large', input: 'a lighthouse' });
    assert.equal(large.data[0]?.embedding.length, 3072);
  });

  it('token arrays: one text\'s ids, or several texts\'; usage counts the ids, the record charges them at the input price', async () => {
    const one = await client().embeddings.create({ model: 'demo-embed', input: [9906, 1917, 0] });
    assert.equal(one.data.length, 1);
    assert.deepEqual(one.usage, { prompt_tokens: 3, total_tokens: 3 });
    const { data, response } = await client().embeddings.create({ model: 'demo-embed', input: [[9906, 1917], [15339, 11, 1917, 0]] }).withResponse();
    assert.equal(data.data.length, 2);
    assert.deepEqual(data.usage, { prompt_tokens: 6, total_tokens: 6 });
    assert.notDeepEqual(data.data[0]?.embedding, one.data[0]?.embedding);
    const record = (await gw.usage()).find((r) => r.requestId === response.headers.get('x-request-id'));
    assert.ok(record !== undefined);
    assert.deepEqual([record.route, record.channel, record.promptTokens, record.completionTokens], ['/v1/embeddings', 'demo', 6, 0]);
    assert.equal(record.cost, (6n * parseMoney(INPUT_PRICE)) / 1_000_000n);
    assert.equal((6n * parseMoney(INPUT_PRICE)) % 1_000_000n, 0n, 'the cost is exact, not rounded');
  });

  it('refuses what the real API refuses, in OpenAI\'s shape: dimensions out of range, an unknown encoding_format, too many inputs', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['dimensions 0', { dimensions: 0 }, 'dimensions'],
      ['dimensions past the model', { dimensions: 1537 }, 'dimensions'],
      ['encoding_format hex', { encoding_format: 'hex' }, 'encoding_format'],
      ['2049 inputs', { input: Array.from({ length: 2049 }, () => 'x') }, 'input'],
      // The mock's own bound: a small request may not make a huge answer (2048 x 1536 values).
      ['an answer past a million values', { input: Array.from({ length: 2048 }, () => 'x') }, 'input'],
    ];
    for (const [what, fields, param] of cases) {
      const err = await client()
        .embeddings.create({ model: 'demo-embed', input: 'hi', ...fields } as OpenAI.EmbeddingCreateParams)
        .then(
          () => null,
          (e: unknown) => e,
        );
      assert.ok(err instanceof OpenAI.BadRequestError, `${what}: ${String(err)}`);
      assert.equal(err.param, param, what);
      assert.equal(err.type, 'invalid_request_error', what);
    }
  });

  it('GET /v1/models lists the embedding models of the key\'s group, and only those', async () => {
    const all = (await client().models.list()).data.map((m) => m.id);
    // The mock lists no models of its own: its patterns are listed as configured (routing/model-catalog.ts).
    assert.deepEqual(all, ['demo-*', 'text-embedding-*']);
    assert.deepEqual((await client(LIMITED_KEY).models.list()).data.map((m) => m.id), ['demo-*']);
    const refused = await client(LIMITED_KEY)
      .embeddings.create({ model: 'text-embedding-3-large', input: 'hi' })
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(refused instanceof OpenAI.APIError && refused.status === 403, String(refused));
  });
});
