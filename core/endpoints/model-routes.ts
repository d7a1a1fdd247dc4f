// The model routes: the chat APIs core serves through the relay plugin, with their formats, codecs and mock answers.
// Every other route is a feature's (features/index.ts).

import { createAnthropicCountTokensFormat, createAnthropicMessagesFormat } from '../formats/anthropic-messages/index.js';
import { codecFor } from '../formats/codecs.js';
import { createOpenAIChatFormat } from '../formats/openai-chat/index.js';
import { createOpenAIResponsesCompactFormat, createOpenAIResponsesFormat } from '../formats/openai-responses/index.js';
import { MOCK_CHAT, MOCK_COMPACT, MOCK_COUNT_TOKENS, MOCK_MESSAGES, MOCK_RESPONSES } from '../providers/mock/answers.js';
import type { BodyReads, ChainStep, Endpoint, WireDeclaration } from './registry.js';

/** A model route's chain: the caller's key, its limits, its money, its record, then the relay to a channel. */
export const METERED: readonly ChainStep[] = ['auth', 'rate-limit', 'quota', 'meter', 'relay'];
/**
 * Free calls (count_tokens): recorded, never charged nor refused for money, nor held to the key's other limits
 * (Anthropic limits token counting apart from messages, and Claude Code counts often), but to a limit of their own:
 * 100 requests per minute per key on the route, Anthropic's figure for its lowest tier.
 */
const COUNT_TOKENS: readonly ChainStep[] = ['auth', { use: 'rate-limit', with: { route_rpm: 100 } }, 'meter', 'relay'];

// What each route reads as names (Endpoint.reads), besides its path parameters and model, which are always checked.
const CHAT_READS: BodyReads = { names: ['prompt_cache_key'] };
const MESSAGES_READS: BodyReads = { names: ['metadata.user_id'] };

/** The chat APIs: each has a codec, so a request in one is served by a channel of another, translated. */
export const MODEL_WIRES: readonly WireDeclaration[] = [
  { name: 'openai-chat', native: ['openai', 'mock'], codec: codecFor('openai-chat') },
  { name: 'openai-responses', native: ['openai', 'mock'], codec: codecFor('openai-responses') },
  { name: 'anthropic-messages', native: ['anthropic', 'mock'], codec: codecFor('anthropic-messages') },
];

export const MODEL_ROUTES: readonly Endpoint[] = [
  { method: 'POST', path: '/v1/chat/completions', wire: 'openai-chat', createFormat: createOpenAIChatFormat, chain: METERED, mock: MOCK_CHAT, reads: CHAT_READS },
  { method: 'POST', path: '/v1/messages', wire: 'anthropic-messages', createFormat: createAnthropicMessagesFormat, chain: METERED, mock: MOCK_MESSAGES, reads: MESSAGES_READS },
  // Not billed, but metered: the record shows who counted what, and the request counts in the metrics.
  {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    wire: 'anthropic-messages',
    createFormat: createAnthropicCountTokensFormat,
    chain: COUNT_TOKENS,
    mock: MOCK_COUNT_TOKENS,
    reads: MESSAGES_READS,
  },
  { method: 'POST', path: '/v1/responses', wire: 'openai-responses', createFormat: createOpenAIResponsesFormat, chain: METERED, mock: MOCK_RESPONSES, reads: CHAT_READS },
  {
    method: 'POST',
    path: '/v1/responses/compact',
    wire: 'openai-responses',
    createFormat: createOpenAIResponsesCompactFormat,
    chain: METERED,
    mock: MOCK_COMPACT,
    reads: CHAT_READS,
  },
];
