// The built-in `mock` channel: an in-process upstream for demos and offline use. What it answers on each path is
// its endpoint's registry entry's `mock` (answers.ts): OpenAI Chat Completions, Responses (and /compact),
// Anthropic Messages (and count_tokens) and OpenAI Images.

import type { EndpointRegistry } from '../../endpoints/registry.js';
import { GatewayError } from '../../errors.js';
import type { Provider, UpstreamRequest, UpstreamResponse } from '../provider.js';
import type { MockImageFiles } from './image-files.js';

/**
 * `files`: where the images it hands out as URLs are kept (they outlive a reload's new provider); `endpoints`: the
 * registry whose entries say what the mock answers.
 */
export function createMockProvider(files: MockImageFiles, endpoints: EndpointRegistry): Provider {
  return {
    send(request: UpstreamRequest): Promise<UpstreamResponse> {
      const answer = endpoints.match(request.method ?? 'POST', request.path)?.endpoint.mock;
      if (answer === undefined) return Promise.reject(new GatewayError('GW_ERR_INTERNAL', `the mock channel does not serve ${request.path}`));
      return answer(request, files);
    },
    async close(): Promise<void> {},
  };
}
