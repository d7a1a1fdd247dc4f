// Upstreams that speak the OpenAI API: Bearer auth; nothing of the client's own headers is forwarded.

import { baseHeaders, createHttpProvider } from '../http-upstream.js';
import type { Provider, UpstreamRequest } from '../provider.js';

function openAIHeaders(request: UpstreamRequest): Record<string, string> {
  const headers: Record<string, string> = { ...request.channel.headers, ...baseHeaders(request) };
  if (request.key !== '') headers['authorization'] = `Bearer ${request.key}`;
  return headers;
}

export function createOpenAIProvider(): Provider {
  return createHttpProvider(openAIHeaders);
}
