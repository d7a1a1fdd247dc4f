// The Anthropic Messages client format, for /v1/messages and /v1/messages/count_tokens.

import { withRequestFields, type ClientFormat } from '../format.js';
import { MESSAGES_OUTPUT_CAPS, NO_OUTPUT_CAPS } from '../output-cap.js';
import { encodeError, encodeStreamError, isErrorFrame } from './errors.js';
import { createRequestDecoder } from './request.js';
import { ScanMemory } from '../scan-memory.js';
import { decodeFrameUsage, decodeUsage, encodeFrameCost, requestStreamUsage } from './usage.js';

/** Everything but request decoding, which differs per route. */
const SHARED: Omit<ClientFormat, 'decodeRequest' | 'translatable' | 'outputCaps'> = {
  name: 'anthropic-messages',
  encodeError,
  encodeStreamError,
  isErrorFrame,
  requestStreamUsage,
  prepareUpstreamBody: (_request, body) => body,
  decodeUsage,
  decodeFrameUsage,
  encodeFrameCost,
};

export function createAnthropicMessagesFormat(memory = new ScanMemory()): ClientFormat {
  return { translatable: true, outputCaps: MESSAGES_OUTPUT_CAPS, decodeRequest: createRequestDecoder('anthropic-messages.request.schema.json', memory), ...SHARED };
}

/** count_tokens speaks the same format; only its body differs (no max_tokens, never a stream). */
export function createAnthropicCountTokensFormat(memory = new ScanMemory()): ClientFormat {
  const decode = createRequestDecoder('anthropic-count-tokens.request.schema.json', memory);
  return { translatable: false, outputCaps: NO_OUTPUT_CAPS, decodeRequest: (raw) => withRequestFields(decode(raw), { stream: false, conversation: null }), ...SHARED };
}
