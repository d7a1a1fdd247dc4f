// Reads a POST /v1/embeddings request: a JSON body whose model and input are checked, forwarded as the client's
// bytes. Parsed whole: an embeddings body is its input, which the check reads entirely anyway, so a skeleton that
// leaves long strings undecoded (json-skeleton.ts) would save nothing.

import { GatewayError } from '../../core/errors.js';
import type { BodyBytes } from '../../core/formats/body-bytes.js';
import { jsonTypeOf } from '../../core/formats/field-reader.js';
import type { ParsedRequest } from '../../core/formats/format.js';
import { LazyRequest } from '../../core/formats/lazy-request.js';
import { invalidField, missingField, wrongType } from '../../core/formats/openai-chat/fields.js';
import { wordOpenAIProblem } from '../../core/formats/openai-chat/request.js';
import { RepeatedKeys } from '../../core/formats/repeated-keys.js';
import { readInputs } from './input-items.js';

/**
 * The largest body read: OpenAI's own bounds (2048 inputs, 300k tokens a request) fit in about 2 MB of JSON, and a
 * body is parsed whole here, where a body of tiny arrays costs the heap many times its bytes.
 */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** The model name's bound on every route (a longer one is no model any channel serves). */
const MAX_MODEL_LENGTH = 256;
/** As the JSON routes' schemas say of `model`: no control characters (PostgreSQL's text refuses NUL, and a log line breaks on a newline). */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
/**
 * The fields the gateway reads: given twice, JSON.parse keeps the last and an upstream may keep the first, so the
 * gateway would route and check another request than the one served (repeated-keys.ts).
 */
const READ_FIELDS = ['model', 'input'] as const;

export function createEmbeddingsDecoder(): (raw: BodyBytes) => ParsedRequest {
  const repeats = new RepeatedKeys(READ_FIELDS);
  return function decodeEmbeddingsRequest(raw: BodyBytes): ParsedRequest {
    if (raw.length > MAX_BODY_BYTES) {
      throw new GatewayError('GW_ERR_REQUEST_TOO_LARGE', `An embeddings request may be at most ${MAX_BODY_BYTES} bytes; send fewer or shorter inputs per request.`);
    }
    const bytes = raw.joined();
    const text = bytes.toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw wordOpenAIProblem({ kind: 'json', detail: (err as Error).message });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw wordOpenAIProblem({ kind: 'not_object' });
    const body = parsed as Record<string, unknown>;
    const repeated = repeats.find(bytes, text);
    if (repeated !== null) throw wordOpenAIProblem({ kind: 'invalid', path: [repeated], keyword: 'uniqueKeys', detail: 'is given more than once; send each field once' });
    const model = modelOf(body['model']);
    readInputs(body['input']);
    return new LazyRequest(raw, body, { whole: () => body }, model, false, null);
  };
}

function modelOf(model: unknown): string {
  if (model === undefined || model === null) throw missingField('model');
  if (typeof model !== 'string') throw wrongType('model', ['string'], jsonTypeOf(model));
  if (model === '' || model.length > MAX_MODEL_LENGTH || CONTROL_CHARACTER.test(model)) {
    throw invalidField('model', `expected a model name of 1 to ${MAX_MODEL_LENGTH} characters, none of them control characters`);
  }
  return model;
}
