// Upstreams that speak the OpenAI API: Bearer auth with the channel's key; the client's end-to-end headers
// (Codex's session-id, thread-id, x-codex-* and OpenAI-Beta flags) forwarded, its credentials never.

import { forwardableHeaders } from '../forward-headers.js';
import { baseHeaders, createHttpProvider } from '../http-upstream.js';
import type { Provider, UpstreamRequest } from '../provider.js';

function openAIHeaders(request: UpstreamRequest): Record<string, string> {
  const headers: Record<string, string> = {
    ...forwardableHeaders(request.clientHeaders),
    ...request.channel.headers,
    ...baseHeaders(request),
  };
  if (request.key !== '') headers['authorization'] = `Bearer ${request.key}`;
  return headers;
}

export function createOpenAIProvider(): Provider {
  return createHttpProvider(openAIHeaders);
}
