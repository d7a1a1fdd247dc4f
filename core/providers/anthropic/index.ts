// Upstreams that speak Anthropic Messages: the channel's key as x-api-key, the client's end-to-end headers
// forwarded (anthropic-version, anthropic-beta, Claude Code's session headers), the caller's own key never.

import { baseHeaders, createHttpProvider } from '../http-upstream.js';
import type { Provider, UpstreamRequest } from '../provider.js';
import { forwardableHeaders } from './forward-headers.js';

/** The version every Anthropic SDK sends; the API requires one. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

function anthropicHeaders(request: UpstreamRequest): Record<string, string> {
  const headers: Record<string, string> = {
    ...forwardableHeaders(request.clientHeaders),
    ...request.channel.headers,
    ...baseHeaders(request),
  };
  headers['anthropic-version'] ??= DEFAULT_ANTHROPIC_VERSION;
  if (request.key !== '') headers['x-api-key'] = request.key;
  return headers;
}

export function createAnthropicProvider(): Provider {
  return createHttpProvider(anthropicHeaders);
}
