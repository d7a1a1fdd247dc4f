// The built-in `mock` channel: an in-process upstream for demos and offline use, answering OpenAI Chat
// Completions, Responses (and /compact), Anthropic Messages (and count_tokens) and OpenAI Images by the path it is
// called on.

import { GatewayError } from '../../errors.js';
import type { Provider, UpstreamRequest, UpstreamResponse } from '../provider.js';
import { answerCountTokens, answerMessages } from './anthropic.js';
import { answerChat } from './chat.js';
import { MockImageFiles } from './image-files.js';
import { answerImages } from './images.js';
import { refusalOf } from './refusal.js';
import { answerCompact, answerResponses } from './responses.js';

/** `files`: where the images it hands out as URLs are kept (they outlive a reload's new provider). */
export function createMockProvider(files = new MockImageFiles()): Provider {
  return {
    send(request: UpstreamRequest): Promise<UpstreamResponse> {
      // The image endpoints' bodies are not all JSON (an edit is a multipart form): read by their own answer.
      if (request.path.startsWith('/v1/images/')) return answerImages(request, files);
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
