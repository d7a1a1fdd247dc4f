// POST /v1/completions answered by the `mock` channel, over real HTTP on loopback, with the official openai SDK: the
// same request gets the same text and usage; `n` choices per prompt, in OpenAI's order; best_of candidates all counted;
// `echo` and `logprobs` (null unless asked); a stream carries the same text as the whole answer, and its usage chunk
// only when asked; the record's cost is the prompt tokens at the input price plus the completion tokens at the output
// price. What the real API refuses, the mock refuses in OpenAI's shape.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { formatMoney, parseMoney } from '../../core/money/decimal.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';

/** Per 1M tokens: prices whose cost per token is a whole number of nano-units. */
const INPUT_PRICE = '1.5';
const OUTPUT_PRICE = '2';
const MODEL = 'demo-instruct';

let gw: GatewayUnderTest;

before(async () => {
  gw = await startGatewayUnderTest(
    configWith(
      `  - name: demo
    type: mock
    models: ["demo-*"]
`,
      `pricing:
  models:
    "${MODEL}": { input: ${INPUT_PRICE}, output: ${OUTPUT_PRICE} }
`,
    ),
  );
});

after(async () => {
  await gw.stop();
});

function client(): OpenAI {
  return new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
}

function costOf(prompt: number, completion: number): bigint {
  const perMillion = BigInt(prompt) * parseMoney(INPUT_PRICE) + BigInt(completion) * parseMoney(OUTPUT_PRICE);
  assert.equal(perMillion % 1_000_000n, 0n, 'the expected cost is a whole number of nano-units');
  return perMillion / 1_000_000n;
}

async function recordOf(requestId: string | null): Promise<Awaited<ReturnType<GatewayUnderTest['usage']>>[number]> {
  const record = (await gw.usage()).find((r) => r.requestId === requestId);
  assert.ok(record !== undefined, `no usage record for ${requestId}`);
  return record;
}

/** The mock's sentence for candidate `k` (from 0) of `prompt`: one token a word piece. */
function mockText(prompt: string, k: number): string {
  return ` Completion ${k + 1} from the mock channel, which read "${prompt}".`;
}

describe('POST /v1/completions on the mock channel', () => {
  it('a text prompt: deterministic text and usage, logprobs null, charged at the input and output prices', async () => {
    const { data, response } = await client().completions.create({ model: MODEL, prompt: 'Say this is a test', max_tokens: 100 }).withResponse();
    assert.equal(data.object, 'text_completion');
    assert.equal(data.model, MODEL);
    assert.match(data.id, /^cmpl-/);
    assert.deepEqual(data.choices, [{ text: mockText('Say this is a test', 0), index: 0, logprobs: null, finish_reason: 'stop' }]);
    // 18 characters at four a token; 13 word pieces.
    assert.deepEqual(data.usage, { prompt_tokens: 5, completion_tokens: 13, total_tokens: 18 });
    const again = await client().completions.create({ model: MODEL, prompt: 'Say this is a test', max_tokens: 100 });
    assert.deepEqual([again.choices, again.usage], [data.choices, data.usage], 'the same request, the same answer');
    const record = await recordOf(response.headers.get('x-request-id'));
    assert.deepEqual([record.route, record.channel, record.promptTokens, record.completionTokens, record.usageEstimated ?? false], ['/v1/completions', 'demo', 5, 13, false]);
    assert.equal(record.cost, costOf(5, 13));
  });

  it('max_tokens defaults to 16, as OpenAI\'s; a cut choice finishes with length', async () => {
    const long = 'a b c d e f g h i j k l m n o p q r s t';
    const cut = await client().completions.create({ model: MODEL, prompt: long });
    assert.equal(cut.choices[0]?.finish_reason, 'length');
    assert.equal(cut.usage?.completion_tokens, 16);
    assert.equal(cut.choices[0]?.text, mockText(long, 0).match(/\s*\S+/g)?.slice(0, 16).join(''));
  });

  it('n choices per prompt, in OpenAI\'s order (prompt p\'s choice c at p x n + c); best_of candidates are all counted', async () => {
    const { data, response } = await client().completions.create({ model: MODEL, prompt: ['first', 'second'], n: 2, best_of: 3, max_tokens: 4 }).withResponse();
    assert.deepEqual(
      data.choices.map((c) => [c.index, c.text, c.finish_reason]),
      [
        [0, ' Completion 1 from the', 'length'],
        [1, ' Completion 2 from the', 'length'],
        [2, ' Completion 1 from the', 'length'],
        [3, ' Completion 2 from the', 'length'],
      ],
    );
    // Prompts: 2 + 2 tokens; completions: 2 prompts x 3 candidates x 4 tokens, though 4 choices come back.
    assert.deepEqual(data.usage, { prompt_tokens: 4, completion_tokens: 24, total_tokens: 28 });
    assert.equal((await recordOf(response.headers.get('x-request-id'))).cost, costOf(4, 24));
  });

  it('token id prompts; echo puts the prompt before the text; logprobs list the tokens with their alternatives', async () => {
    const answer = await client().completions.create({ model: MODEL, prompt: [[1212, 318], [13]], echo: true, logprobs: 2, max_tokens: 2 });
    assert.deepEqual(
      answer.choices.map((c) => c.text),
      ['<|1212|><|318|> Completion 1', '<|13|> Completion 1'],
    );
    const logprobs = answer.choices[0]?.logprobs;
    assert.deepEqual(logprobs?.tokens, ['<|1212|>', '<|318|>', ' Completion', ' 1']);
    assert.deepEqual(logprobs?.text_offset, [0, 8, 15, 26]);
    assert.equal(logprobs?.token_logprobs?.[0], null);
    assert.equal(Object.keys(logprobs?.top_logprobs?.[3] ?? {}).length, 2);
    assert.deepEqual(answer.usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  });

  it('a stream: the same text in chunks, the choices taking turns; its usage chunk when asked, and charged either way', async () => {
    const whole = await client().completions.create({ model: MODEL, prompt: 'Once upon a time', n: 2, max_tokens: 6 });
    for (const includeUsage of [true, false]) {
      const { data: stream, response } = await client()
        .completions.create({ model: MODEL, prompt: 'Once upon a time', n: 2, max_tokens: 6, stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) })
        .withResponse();
      const texts = ['', ''];
      const finished: (string | null)[] = [null, null];
      const usages: unknown[] = [];
      for await (const chunk of stream) {
        assert.equal(chunk.object, 'text_completion');
        for (const choice of chunk.choices) {
          texts[choice.index] += choice.text;
          if (choice.finish_reason !== null) finished[choice.index] = choice.finish_reason;
        }
        if (chunk.usage !== null && chunk.usage !== undefined) usages.push(chunk.usage);
      }
      assert.deepEqual(texts, whole.choices.map((c) => c.text));
      assert.deepEqual(finished, ['length', 'length']);
      // The usage chunk asked for tells the charge beside the counts (usage.cost, docs/money.md).
      const told = Object.assign({}, whole.usage, { cost: Number(formatMoney(costOf(4, 12))) });
      assert.deepEqual(usages, includeUsage ? [told] : [], includeUsage ? 'the usage chunk asked for' : 'no usage chunk the client did not ask for');
      const record = await recordOf(response.headers.get('x-request-id'));
      assert.deepEqual([record.promptTokens, record.completionTokens, record.usageEstimated ?? false, record.cost], [4, 12, false, costOf(4, 12)]);
    }
  });

  it('refuses what the real API refuses, in OpenAI\'s shape', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['n past 128', { n: 129 }, 'n'],
      ['best_of past 20', { best_of: 21 }, 'best_of'],
      ['best_of under n', { n: 3, best_of: 2 }, 'best_of'],
      ['a stream that must pick among candidates', { stream: true, n: 1, best_of: 2 }, 'best_of'],
      ['logprobs past 5', { logprobs: 6 }, 'logprobs'],
      ['temperature past 2', { temperature: 2.5 }, 'temperature'],
      ['top_p past 1', { top_p: 1.5 }, 'top_p'],
      ['five stop sequences', { stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
      ['a logit bias past 100', { logit_bias: { '50256': -101 } }, 'logit_bias'],
      ['stream_options without a stream', { stream_options: { include_usage: true } }, 'stream_options'],
      // The mock's own bound: a small request may not make a huge answer.
      ['too many candidates', { prompt: Array.from({ length: 103 }, () => 'x'), best_of: 20 }, 'prompt'],
    ];
    for (const [what, fields, param] of cases) {
      const err = await client()
        .completions.create({ model: MODEL, prompt: 'hi', ...fields } as OpenAI.CompletionCreateParamsNonStreaming)
        .then(
          () => null,
          (e: unknown) => e,
        );
      assert.ok(err instanceof OpenAI.BadRequestError, `${what}: ${String(err)}`);
      assert.equal(err.param, param, what);
      assert.equal(err.type, 'invalid_request_error', what);
    }
  });

  it('GET /v1/models lists the mock\'s models', async () => {
    // The mock lists no models of its own: its patterns are listed as configured (routing/model-catalog.ts).
    assert.deepEqual((await client().models.list()).data.map((m) => m.id), ['demo-*']);
  });
});
