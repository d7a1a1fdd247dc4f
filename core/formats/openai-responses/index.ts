// The OpenAI Responses client format, for /v1/responses and /v1/responses/compact.

import { withRequestFields, type ClientFormat } from '../format.js';
import { setBodyField } from '../json-edit.js';
import { NO_OUTPUT_CAPS, RESPONSES_OUTPUT_CAPS } from '../output-cap.js';
import { createRequestDecoder } from '../openai-chat/request.js';
import { ScanMemory } from '../scan-memory.js';
import { encodeError, encodeStreamError, isErrorFrame } from './errors.js';
import { decodeFrameUsage, decodeUsage, encodeFrameCost } from './usage.js';

/** Everything but request decoding and the upstream body rules, which differ per route. */
const SHARED: Omit<ClientFormat, 'decodeRequest' | 'prepareUpstreamBody' | 'translatable' | 'outputCaps'> = {
  name: 'openai-responses',
  encodeError,
  encodeStreamError,
  isErrorFrame,
  // The terminal event always carries the usage: nothing to ask for.
  requestStreamUsage: () => null,
  decodeUsage,
  decodeFrameUsage,
  encodeFrameCost,
};

export function createOpenAIResponsesFormat(memory = new ScanMemory()): ClientFormat {
  return {
    translatable: true,
    outputCaps: RESPONSES_OUTPUT_CAPS,
    decodeRequest: createRequestDecoder('openai-responses.request.schema.json', memory),
    // The gateway keeps nothing at the provider: responses are never stored upstream, whatever the caller sent.
    prepareUpstreamBody: (request, body) => (request.head['store'] === false ? body : setBodyField(body, 'store', false)),
    ...SHARED,
  };
}

/** /compact: the same format, never streamed, no store field nor output cap (the API takes neither there). */
export function createOpenAIResponsesCompactFormat(memory = new ScanMemory()): ClientFormat {
  const decode = createRequestDecoder('openai-responses-compact.request.schema.json', memory);
  return { translatable: false, outputCaps: NO_OUTPUT_CAPS, decodeRequest: (raw) => withRequestFields(decode(raw), { stream: false }), prepareUpstreamBody: (_request, body) => body, ...SHARED };
}
