// Upstreams that speak Anthropic Messages: the channel's key as x-api-key, the client's end-to-end headers
// forwarded (anthropic-version, anthropic-beta, Claude Code's session headers), the caller's own key never.

import { addChannelHeaders, createHttpProvider, setBaseHeaders } from '../http-upstream.js';
import type { Provider, UpstreamRequest } from '../provider.js';
import { forwardableHeaders } from '../forward-headers.js';
import { listHeaders, readAnthropicModelPages, type ModelListReader } from '../model-discovery.js';

/** The version every Anthropic SDK sends; the API requires one. */
const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/**
 * The SDKs add this beta to say the caller authenticates with an OAuth token. That is about the caller's
 * credential to us; the upstream receives the channel's API key, so the flag would misdescribe the call.
 */
const CALLER_AUTH_BETAS: ReadonlySet<string> = new Set(['oauth-2025-04-20']);

function withoutCallerAuthBetas(headers: Record<string, string>): Record<string, string> {
  const beta = headers['anthropic-beta'];
  if (beta === undefined) return headers;
  const kept = beta
    .split(',')
    .map((flag) => flag.trim())
    .filter((flag) => flag !== '' && !CALLER_AUTH_BETAS.has(flag));
  if (kept.length > 0) headers['anthropic-beta'] = kept.join(',');
  else delete headers['anthropic-beta'];
  return headers;
}

function anthropicHeaders(request: UpstreamRequest): Record<string, string> {
  const headers = setBaseHeaders(addChannelHeaders(withoutCallerAuthBetas(forwardableHeaders(request.clientHeaders)), request), request);
  headers['anthropic-version'] ??= DEFAULT_ANTHROPIC_VERSION;
  if (request.key !== '') headers['x-api-key'] = request.key;
  return headers;
}

/** The models API needs a version like every other call; a channel's own anthropic-version header wins. */
const readModels: ModelListReader = (get, channel, key) => {
  const headers = listHeaders(channel, key === '' ? {} : { 'x-api-key': key });
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'anthropic-version')) headers['anthropic-version'] = DEFAULT_ANTHROPIC_VERSION;
  return readAnthropicModelPages(get, headers);
};

export function createAnthropicProvider(): Provider {
  return createHttpProvider(anthropicHeaders, readModels);
}
