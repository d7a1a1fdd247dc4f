// The OpenAI Embeddings client format: POST /v1/embeddings, a JSON body relayed as sent, answers and errors in
// OpenAI's shape, usage read from the answer. Served natively only: no other API has embeddings to translate to.

import type { ApiFormat } from '../../core/config/resolved.js';
import type { ClientFormat } from '../../core/formats/format.js';
import { encodeError, encodeStreamError, isErrorFrame } from '../../core/formats/openai-chat/errors.js';
import { plainFormat } from '../../core/formats/plain-format.js';
import { createEmbeddingsDecoder } from './embeddings-request.js';
import { decodeUsage } from './usage.js';

/**
 * The client API the route is routed by: a channel serves it when its `formats` list this name. Its own, so that an
 * operator may leave embeddings out of a channel's `formats` (a chat-only vendor); by default every `openai` channel
 * and the mock speak it (index.ts, `wires`).
 */
export const EMBEDDINGS_API: ApiFormat = 'openai-embeddings';

export function createOpenAIEmbeddingsFormat(): ClientFormat {
  return plainFormat({ name: EMBEDDINGS_API, decodeRequest: createEmbeddingsDecoder(), encodeError, encodeStreamError, isErrorFrame, decodeUsage });
}
