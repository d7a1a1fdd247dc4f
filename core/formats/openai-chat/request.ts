// Reads a Chat Completions request: the shared JSON check, problems worded as OpenAI words them.

import { GatewayError } from '../../errors.js';
import type { BodyBytes } from '../body-bytes.js';
import type { ParsedRequest } from '../format.js';
import { LazyRequest } from '../lazy-request.js';
import { createJsonBodyReader, type BodyProblem } from '../json-request.js';
import { ScanMemory } from '../scan-memory.js';
import { invalidField, missingField, wrongType } from './fields.js';

export type RequestDecoder = (raw: BodyBytes) => ParsedRequest;

/** OpenAI's request decoding, for Chat Completions and (with its own schema) the Responses API. */
export function createRequestDecoder(schemaFile = 'openai-chat.request.schema.json', memory = new ScanMemory()): RequestDecoder {
  const read = createJsonBodyReader(schemaFile, wordOpenAIProblem, memory);
  return function decodeOpenAIRequest(raw: BodyBytes): ParsedRequest {
    const body = read(raw);
    const head = body.head;
    const cacheKey = head['prompt_cache_key'];
    // OpenAI routes requests sharing a prompt_cache_key to the same cache; we keep them on one upstream
    // (Codex sets it to its thread id).
    const conversation = typeof cacheKey === 'string' && cacheKey !== '' ? cacheKey : null;
    return new LazyRequest(raw, head, body, head['model'] as string, head['stream'] === true, conversation);
  };
}

/** `messages`, `0`, `role` -> `messages[0].role`, the notation OpenAI uses in `param`. */
function toParam(path: readonly string[]): string {
  return path.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc === '' ? part : `${acc}.${part}`), '');
}

/** A shallow check's problem as OpenAI words it (Chat Completions, Responses, Images). */
export function wordOpenAIProblem(problem: BodyProblem): GatewayError {
  switch (problem.kind) {
    case 'json':
      return new GatewayError(
        'GW_ERR_REQUEST_INVALID_JSON',
        `We could not parse the JSON body of your request: ${problem.detail}. The body must be a JSON object.`,
      );
    case 'not_object':
      return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'The request body must be a JSON object.');
    case 'missing':
      return missingField(toParam(problem.path));
    case 'type':
      return wrongType(toParam(problem.path), problem.expected, problem.got);
    case 'invalid':
      return invalidField(toParam(problem.path), problem.detail);
  }
}
