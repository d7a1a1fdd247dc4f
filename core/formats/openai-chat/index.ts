// The OpenAI Chat Completions client format.

import type { ClientFormat } from '../format.js';
import { encodeError, encodeStreamError, isErrorFrame } from './errors.js';
import { createRequestDecoder } from './request.js';
import { decodeFrameUsage, decodeUsage, requestStreamUsage } from './usage.js';

export function createOpenAIChatFormat(): ClientFormat {
  return {
    name: 'openai-chat',
    translatable: true,
    decodeRequest: createRequestDecoder(),
    encodeError,
    encodeStreamError,
    isErrorFrame,
    requestStreamUsage,
    prepareUpstreamBody: (_request, body) => body,
    decodeUsage,
    decodeFrameUsage,
  };
}
