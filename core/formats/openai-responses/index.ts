// The OpenAI Responses client format, for /v1/responses and /v1/responses/compact.

import { GatewayError } from '../../errors.js';
import type { ClientFormat, ParsedRequest } from '../format.js';
import { createJsonBodyReader, type BodyProblem } from '../json-request.js';
import { setTopLevelField } from '../json-edit.js';
import { wordProblem } from '../openai-chat/request.js';
import { encodeError, encodeStreamError } from './errors.js';
import { decodeFrameUsage, decodeUsage } from './usage.js';

function decoderFor(schemaFile: string): (raw: Buffer) => ParsedRequest {
  const read = createJsonBodyReader(schemaFile, (problem: BodyProblem): GatewayError => wordProblem(problem));
  return (raw) => {
    const body = read(raw);
    const cacheKey = body['prompt_cache_key'];
    return {
      raw,
      json: body,
      model: body['model'] as string,
      stream: body['stream'] === true,
      // Codex sets prompt_cache_key to its thread id: one conversation, one upstream, one warm cache.
      conversation: typeof cacheKey === 'string' && cacheKey !== '' ? cacheKey : null,
    };
  };
}

export function createOpenAIResponsesFormat(): ClientFormat {
  return {
    name: 'openai-responses',
    decodeRequest: decoderFor('openai-responses.request.schema.json'),
    encodeError,
    encodeStreamError,
    // The terminal event always carries the usage: nothing to ask for.
    requestStreamUsage: () => null,
    // The gateway keeps nothing at the provider: responses are never stored upstream, whatever the caller sent.
    prepareUpstreamBody: (request, body) => (request.json['store'] === false ? body : setTopLevelField(body, 'store', false)),
    decodeUsage,
    decodeFrameUsage,
  };
}

/** /compact: the same format, never streamed, no store field (the API takes none there). */
export function createOpenAIResponsesCompactFormat(): ClientFormat {
  const decode = decoderFor('openai-responses-compact.request.schema.json');
  return {
    ...createOpenAIResponsesFormat(),
    decodeRequest: (raw) => ({ ...decode(raw), stream: false }),
    prepareUpstreamBody: (_request, body) => body,
  };
}
