// The OpenAI Completions client format (the legacy API): POST /v1/completions, a JSON body relayed as sent, answers
// and errors in OpenAI's shape. Its usage is Chat's: `usage.prompt_tokens` and `completion_tokens` in a whole answer,
// and in a stream one last chunk with no choices when `stream_options.include_usage` asks for it; so Chat's readers
// serve it, and its asking for that chunk when the client did not (the meter then drops it). Served natively only:
// no other API takes a bare prompt to translate to.

import type { ApiFormat } from '../../core/config/resolved.js';
import type { ClientFormat } from '../../core/formats/format.js';
import { encodeError, encodeStreamError, isErrorFrame } from '../../core/formats/openai-chat/errors.js';
import { decodeFrameUsage, decodeUsage, encodeFrameCost, requestStreamUsage } from '../../core/formats/openai-chat/usage.js';
import { plainFormat } from '../../core/formats/plain-format.js';
import type { ScanMemory } from '../../core/formats/scan-memory.js';
import { createCompletionsDecoder } from './completions-request.js';

/**
 * The client API the route is routed by: its own, so that an operator may leave it out of a channel's `formats` (a
 * vendor without the legacy API); by default every `openai` channel and the mock speak it (index.ts, `wires`).
 */
export const COMPLETIONS_API: ApiFormat = 'openai-completions';

/**
 * The output cap the upstream honours: `max_tokens`, per choice (OpenAI's default when absent is 16; core reserves
 * pricing.default_output_reserve then, more than that).
 */
export const COMPLETIONS_OUTPUT_CAPS: readonly string[] = ['max_tokens'];

export function createOpenAICompletionsFormat(memory?: ScanMemory): ClientFormat {
  return plainFormat({
    name: COMPLETIONS_API,
    outputCaps: COMPLETIONS_OUTPUT_CAPS,
    decodeRequest: createCompletionsDecoder(memory),
    encodeError,
    encodeStreamError,
    isErrorFrame,
    requestStreamUsage,
    decodeUsage,
    decodeFrameUsage,
    // The usage chunk is Chat's: the price goes beside the usage in it (`usage.cost`).
    encodeFrameCost,
  });
}
