// The OpenAI Chat Completions client format.

import type { ClientFormat } from '../format.js';
import { CHAT_OUTPUT_CAPS } from '../output-cap.js';
import { encodeError, encodeStreamError, isErrorFrame } from './errors.js';
import { createRequestDecoder } from './request.js';
import { ScanMemory } from '../scan-memory.js';
import { decodeFrameUsage, decodeUsage, encodeFrameCost, requestStreamUsage } from './usage.js';

/** A Gateway hands its formats the server's ScanMemory; a format made alone (a test, a tool) gets its own. */
export function createOpenAIChatFormat(memory = new ScanMemory()): ClientFormat {
  return {
    name: 'openai-chat',
    translatable: true,
    outputCaps: CHAT_OUTPUT_CAPS,
    decodeRequest: createRequestDecoder(undefined, memory),
    encodeError,
    encodeStreamError,
    isErrorFrame,
    requestStreamUsage,
    prepareUpstreamBody: (_request, body) => body,
    decodeUsage,
    decodeFrameUsage,
    encodeFrameCost,
  };
}
