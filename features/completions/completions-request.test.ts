// The gateway's reading of a completions body: the model routed, a stream noticed, the whole body kept; the 400s of
// its schema and its prompts, each naming the field; and the reservation core makes from it (core/money/estimate.ts):
// the body's bytes / 4 of input, and max_tokens (or pricing.default_output_reserve) for each of `n` choices.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../core/errors.js';
import { BodyBytes } from '../../core/formats/body-bytes.js';
import { ONE } from '../../core/money/decimal.js';
import { maxCost } from '../../core/money/estimate.js';
import type { ModelPrice } from '../../core/money/price.js';
import { createOpenAICompletionsFormat } from './format.js';

const format = createOpenAICompletionsFormat();
/** A nano-unit per output token and nothing for input: maxCost is then the output tokens reserved. */
const OUTPUT_ONLY: ModelPrice = { input: 0n, output: 1_000_000n, cacheRead: 0n, cacheWrite: 0n, inputImage: 0n, outputImage: 0n, perImage: 0n, perSecond: 0n };
const DEFAULT_RESERVE = 4096;

function decode(body: unknown): ReturnType<typeof format.decodeRequest> {
  return format.decodeRequest(BodyBytes.of(Buffer.from(typeof body === 'string' ? body : JSON.stringify(body))));
}

function paramOf(body: unknown): string | null {
  try {
    decode(body);
  } catch (err) {
    assert.ok(err instanceof GatewayError && err.status === 400, String(err));
    return err.param;
  }
  assert.fail(`${JSON.stringify(body)} was read`);
}

function outputReserved(body: unknown): number {
  return Number(maxCost(decode(body), format.outputCaps, OUTPUT_ONLY, ONE, DEFAULT_RESERVE));
}

describe('decoding POST /v1/completions', () => {
  it('reads the model and the stream, no conversation, and keeps the whole body as sent', () => {
    const body = {
      model: 'gpt-3.5-turbo-instruct',
      prompt: ['a', 'b'],
      stream: true,
      stream_options: { include_usage: true },
      n: 2,
      best_of: 3,
      logprobs: 2,
      echo: true,
      suffix: 'end',
      max_tokens: 7,
      temperature: 0.5,
      top_p: 1,
      stop: ['\n'],
      presence_penalty: 0,
      frequency_penalty: 0.5,
      logit_bias: { '50256': -100 },
      user: 'u1',
      seed: 42,
      top_k: 5,
    };
    const request = decode(body);
    assert.deepEqual([request.model, request.stream, request.conversation, request.images], ['gpt-3.5-turbo-instruct', true, null, undefined]);
    assert.deepEqual(request.json, body);
    assert.equal(decode({ model: 'm', prompt: 'x' }).stream, false);
    assert.equal(decode({ model: 'm' }).model, 'm', 'no prompt is one empty document, as OpenAI takes it');
  });

  it('refuses a bad body naming the field: the schema\'s types and bounds, then the prompt\'s items', () => {
    const cases: [unknown, string | null][] = [
      [{ prompt: 'x' }, 'model'],
      [{ model: '', prompt: 'x' }, 'model'],
      [{ model: 7, prompt: 'x' }, 'model'],
      [{ model: 'm', prompt: 5 }, 'prompt'],
      [{ model: 'm', prompt: [] }, 'prompt'],
      [{ model: 'm', prompt: ['a', 1] }, 'prompt[1]'],
      [{ model: 'm', prompt: [[1], [-1]] }, 'prompt[1][0]'],
      [{ model: 'm', prompt: 'x', stream: 'yes' }, 'stream'],
      [{ model: 'm', prompt: 'x', stream_options: { include_usage: 1 } }, 'stream_options.include_usage'],
      [{ model: 'm', prompt: 'x', n: 0 }, 'n'],
      [{ model: 'm', prompt: 'x', n: 1.5 }, 'n'],
      [{ model: 'm', prompt: 'x', best_of: '2' }, 'best_of'],
      [{ model: 'm', prompt: 'x', max_tokens: -1 }, 'max_tokens'],
      [{ model: 'm', prompt: 'x', logprobs: true }, 'logprobs'],
      [{ model: 'm', prompt: 'x', echo: 'true' }, 'echo'],
      [{ model: 'm', prompt: 'x', suffix: 3 }, 'suffix'],
      [{ model: 'm', prompt: 'x', temperature: 'hot' }, 'temperature'],
      [{ model: 'm', prompt: 'x', stop: [1] }, 'stop[0]'],
      [{ model: 'm', prompt: 'x', logit_bias: { '50256': 'ban' } }, 'logit_bias[50256]'],
      [{ model: 'm', prompt: 'x', user: 5 }, 'user'],
      [{ model: 'm', prompt: 'x', seed: 1.5 }, 'seed'],
      ['{"model":"m","prompt":"x","max_tokens":5,"max_tokens":5000}', 'max_tokens'],
      ['{"model":"m","prompt":"x","prompt":["y","z"]}', 'prompt'],
      ['{"model":', null],
      ['["x"]', null],
    ];
    for (const [body, param] of cases) assert.equal(paramOf(body), param, typeof body === 'string' ? body : JSON.stringify(body));
  });

  it('reserves max_tokens for each of n choices, and the default reserve for each when max_tokens is absent or null', () => {
    assert.equal(outputReserved({ model: 'm', prompt: 'x', max_tokens: 100 }), 100);
    assert.equal(outputReserved({ model: 'm', prompt: 'x', max_tokens: 100, n: 3 }), 300);
    assert.equal(outputReserved({ model: 'm', prompt: 'x', max_tokens: 0, echo: true, logprobs: 0 }), 0);
    // OpenAI's default is 16: the default reserve is more than that, never less.
    assert.equal(outputReserved({ model: 'm', prompt: 'x' }), DEFAULT_RESERVE);
    assert.equal(outputReserved({ model: 'm', prompt: 'x', max_tokens: null, n: 2 }), 2 * DEFAULT_RESERVE);
  });

  it('reserves the cap for every answer the upstream generates: max(n, best_of) for each prompt', () => {
    assert.equal(outputReserved({ model: 'm', prompt: 'x', max_tokens: 100, n: 2, best_of: 5 }), 500, 'best_of candidates, each up to the cap');
    assert.equal(outputReserved({ model: 'm', prompt: ['a', 'b', 'c'], max_tokens: 100 }), 300, 'one answer for each of three prompts');
    assert.equal(outputReserved({ model: 'm', prompt: [[1], [2]], max_tokens: 10, n: 2, best_of: 3 }), 60, 'best_of for each of two prompts');
  });
});
