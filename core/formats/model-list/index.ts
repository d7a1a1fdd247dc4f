// GET /v1/models and /v1/models/{id} (and the other GETs of a key: /v1/me, the billing routes): a request that is
// its path and query alone, answered (errors included) in the caller's API, OpenAI's or Anthropic's, chosen from its
// headers (caller-api.ts).

import { encodeError as encodeAnthropicError, encodeStreamError as encodeAnthropicStreamError } from '../anthropic-messages/errors.js';
import type { BodyBytes } from '../body-bytes.js';
import { looksAnthropic } from '../caller-api.js';
import type { ClientFormat, ParsedRequest } from '../format.js';
import { LazyRequest } from '../lazy-request.js';
import { encodeError, encodeStreamError, isErrorFrame } from '../openai-chat/errors.js';
import { plainFormat } from '../plain-format.js';

const NONE: Readonly<Record<string, unknown>> = Object.freeze({});

/** No body to read, and no one model: auth admits the key alone (model ''). */
function decodeRequest(raw: BodyBytes): ParsedRequest {
  return new LazyRequest(raw, NONE, { whole: () => ({}) }, '', false, null);
}

function listFormat(name: 'openai-chat' | 'anthropic-messages'): ClientFormat {
  const anthropic = name === 'anthropic-messages';
  return plainFormat({
    name,
    decodeRequest,
    encodeError: anthropic ? encodeAnthropicError : encodeError,
    encodeStreamError: anthropic ? encodeAnthropicStreamError : encodeStreamError,
    isErrorFrame,
  });
}

export function createModelListFormat(): ClientFormat {
  const openai = listFormat('openai-chat');
  const anthropic = listFormat('anthropic-messages');
  return Object.assign({}, openai, {
    // By the headers alone: a model id in the path may contain "messages".
    forCaller: (_path: string, headers: Readonly<Record<string, string | string[] | undefined>>) => (looksAnthropic('/v1/models', headers) ? anthropic : openai),
  });
}
