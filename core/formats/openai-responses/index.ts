// The OpenAI Responses client format, for /v1/responses and /v1/responses/compact.

import type { ClientFormat } from '../format.js';
import { setTopLevelField } from '../json-edit.js';
import { createRequestDecoder } from '../openai-chat/request.js';
import { encodeError, encodeStreamError } from './errors.js';
import { decodeFrameUsage, decodeUsage } from './usage.js';

export function createOpenAIResponsesFormat(): ClientFormat {
  return {
    name: 'openai-responses',
    decodeRequest: createRequestDecoder('openai-responses.request.schema.json'),
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
  const decode = createRequestDecoder('openai-responses-compact.request.schema.json');
  return {
    ...createOpenAIResponsesFormat(),
    decodeRequest: (raw) => ({ ...decode(raw), stream: false }),
    prepareUpstreamBody: (_request, body) => body,
  };
}
