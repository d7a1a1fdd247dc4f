// Upstreams that speak the OpenAI API: Bearer auth with the channel's key; the client's end-to-end headers
// (Codex's session-id, thread-id, x-codex-* and OpenAI-Beta flags) forwarded, its credentials never.

import { forwardableHeaders } from '../forward-headers.js';
import { addChannelHeaders, createHttpProvider, setBaseHeaders } from '../http-upstream.js';
import { listHeaders, readOpenAIModelList, type ModelListReader } from '../model-discovery.js';
import type { Provider, UpstreamRequest } from '../provider.js';

function openAIHeaders(request: UpstreamRequest): Record<string, string> {
  // Built in place, not spread from three objects: this runs for every upstream call.
  const headers = setBaseHeaders(addChannelHeaders(forwardableHeaders(request.clientHeaders), request), request);
  if (request.key !== '') headers['authorization'] = `Bearer ${request.key}`;
  return headers;
}

const readModels: ModelListReader = (get, channel, key) =>
  readOpenAIModelList(get, listHeaders(channel, key === '' ? {} : { authorization: `Bearer ${key}` }));

export function createOpenAIProvider(): Provider {
  return createHttpProvider(openAIHeaders, readModels);
}
