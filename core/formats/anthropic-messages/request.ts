// Reads a Messages (or count_tokens) request: the shared JSON check, problems worded as Anthropic words them
// ("max_tokens: Field required", "messages.0.role: ...").

import { GatewayError } from '../../errors.js';
import type { BodyBytes } from '../body-bytes.js';
import type { ParsedRequest } from '../format.js';
import { LazyRequest } from '../lazy-request.js';
import { createJsonBodyReader, type BodyProblem } from '../json-request.js';
import type { ScanMemory } from '../scan-memory.js';
import { invalidField, missingField, wrongType } from './fields.js';

export type RequestDecoder = (raw: BodyBytes) => ParsedRequest;

export function createRequestDecoder(schemaFile: string, memory: ScanMemory): RequestDecoder {
  const read = createJsonBodyReader(schemaFile, wordProblem, memory);
  return function decodeMessagesRequest(raw: BodyBytes): ParsedRequest {
    const body = read(raw);
    const head = body.head;
    const metadata = head['metadata'];
    const userId = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>)['user_id'] : null;
    // Claude Code sends a JSON string with device, account and session ids; the whole string names the conversation.
    const conversation = typeof userId === 'string' && userId !== '' ? userId : null;
    return new LazyRequest(raw, head, body, head['model'] as string, head['stream'] === true, conversation);
  };
}

function wordProblem(problem: BodyProblem): GatewayError {
  switch (problem.kind) {
    case 'json':
      return new GatewayError('GW_ERR_REQUEST_INVALID_JSON', `The request body is not valid JSON: ${problem.detail}`);
    case 'not_object':
      return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'The request body must be a JSON object.');
    case 'missing':
      return missingField(problem.path.join('.'));
    case 'type':
      return wrongType(problem.path.join('.'), problem.expected, problem.got);
    case 'invalid':
      return invalidField(problem.path.join('.'), problem.detail);
  }
}
