// The mock channel's Embeddings API: POST /v1/embeddings answered offline, one deterministic vector per input
// (mock-vectors.ts), as floats or base64, of the model's length or `dimensions`, with the tokens embedded as usage.
// What the real API refuses, the mock refuses in its words.

import { GatewayError } from '../../core/errors.js';
import { encodeError } from '../../core/formats/openai-chat/errors.js';
import { openaiFields } from '../../core/formats/openai-chat/fields.js';
import { jsonResponse, renderedResponse } from '../../core/providers/mock/respond.js';
import type { UpstreamRequest, UpstreamResponse } from '../../core/providers/provider.js';
import { readInputs, type EmbeddingInput } from './input-items.js';
import { encodeEmbedding, mockEmbedding, type EncodingFormat } from './mock-vectors.js';

/** The Embeddings API's own bound on the inputs of one request. */
/** The most values one mock answer carries (inputs x dimensions): a small request must not make a huge answer. */
const MAX_VALUES = 1 << 20;
/** The vector length of text-embedding-3-large; every other model's (3-small, ada-002, the mock's own) is SMALL_DIMENSIONS. */
const LARGE_DIMENSIONS = 3072;
const SMALL_DIMENSIONS = 1536;

/** POST /v1/embeddings: a JSON body the gateway has checked (its model and input). */
export function answerEmbeddings(request: UpstreamRequest): Promise<UpstreamResponse> {
  let body: unknown;
  try {
    body = JSON.parse(request.body.joined().toString('utf8'));
  } catch (err) {
    return Promise.reject(new GatewayError('GW_ERR_INTERNAL', 'the mock channel got a body that is not JSON', { cause: err }));
  }
  try {
    return Promise.resolve(jsonResponse(embeddingsOf(openaiFields.object(body, 'body'))));
  } catch (err) {
    if (!(err instanceof GatewayError)) return Promise.reject(err);
    return Promise.resolve(renderedResponse(encodeError(err)));
  }
}

function embeddingsOf(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const inputs = readInputs(body['input']);
  const model = openaiFields.string(body['model'], 'model');
  const encoding = encodingOf(body['encoding_format']);
  const dimensions = dimensionsOf(body['dimensions'], model.includes('-3-large') ? LARGE_DIMENSIONS : SMALL_DIMENSIONS);
  if (inputs.length * dimensions > MAX_VALUES) {
    throw openaiFields.invalid('input', `the mock channel answers at most ${MAX_VALUES} values a request (inputs x dimensions), but this asks ${inputs.length * dimensions}: send fewer inputs or ask fewer dimensions`);
  }
  const data = inputs.map((input, index) => ({ object: 'embedding', index, embedding: encodeEmbedding(mockEmbedding(input, dimensions), encoding) }));
  const tokens = inputs.reduce((sum, input) => sum + tokensOf(input), 0);
  return { object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
}

/** A text at four characters a token, as the mock's chat counts (core/providers/mock/reply.ts); token ids one each. */
function tokensOf(input: EmbeddingInput): number {
  return typeof input === 'string' ? Math.max(1, Math.ceil(input.length / 4)) : input.length;
}

/** `float` unless asked otherwise, as the API defaults (the SDKs ask for base64 and decode it). */
function encodingOf(value: unknown): EncodingFormat {
  if (value === undefined || value === null || value === 'float') return 'float';
  if (value === 'base64') return 'base64';
  throw openaiFields.invalid('encoding_format', "expected 'float' or 'base64'");
}

/** The model's full length unless `dimensions` asks fewer; more than the model has is refused, as OpenAI does. */
function dimensionsOf(value: unknown, full: number): number {
  if (value === undefined || value === null) return full;
  if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > full) {
    throw openaiFields.invalid('dimensions', `expected an integer from 1 to ${full}`);
  }
  return value as number;
}
