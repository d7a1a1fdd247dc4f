// The built-in `mock` channel: an in-process upstream for demos and offline use, answering OpenAI Chat
// Completions, Responses (and /compact) and Anthropic Messages (and count_tokens) by the path it is called on.

import { GatewayError } from '../../errors.js';
import type { Provider, UpstreamRequest, UpstreamResponse } from '../provider.js';
import { answerCountTokens, answerMessages } from './anthropic.js';
import { answerChat } from './chat.js';
import { refusalOf } from './refusal.js';
import { answerCompact, answerResponses } from './responses.js';

export function createMockProvider(): Provider {
  return {
    send(request: UpstreamRequest): Promise<UpstreamResponse> {
      const body = JSON.parse(request.body.joined().toString('utf8')) as Record<string, unknown>;
      const refusal = refusalOf(request, body);
      if (refusal !== null) return Promise.resolve(refusal);
      switch (request.path) {
        case '/v1/chat/completions':
          return Promise.resolve(answerChat(request, body));
        case '/v1/messages':
          return Promise.resolve(answerMessages(request, body));
        case '/v1/messages/count_tokens':
          return Promise.resolve(answerCountTokens(body));
        case '/v1/responses':
          return Promise.resolve(answerResponses(request, body));
        case '/v1/responses/compact':
          return Promise.resolve(answerCompact(request, body));
        default:
          return Promise.reject(new GatewayError('GW_ERR_INTERNAL', `the mock channel does not serve ${request.path}`));
      }
    },
    async close(): Promise<void> {},
  };
}
