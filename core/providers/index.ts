// Upstream dialects by channel type.

import type { ChannelType } from '../config/resolved.js';
import type { EndpointRegistry } from '../endpoints/registry.js';
import { createAnthropicProvider } from './anthropic/index.js';
import type { MockImageFiles } from './mock/image-files.js';
import { createMockProvider } from './mock/index.js';
import { createOpenAIProvider } from './openai/index.js';
import type { Provider } from './provider.js';

export type { Provider } from './provider.js';

/**
 * Core's channel types, beside the ones features bring (EndpointRegistry.channelTypes); `remote`: a channel of it calls
 * an upstream, so it needs a base_url and keys. volcengine's calls are its features' (their own upstreams).
 */
export const CORE_CHANNEL_TYPES: readonly { readonly type: ChannelType; readonly remote: boolean }[] = [
  { type: 'openai', remote: true },
  { type: 'anthropic', remote: true },
  { type: 'volcengine', remote: true },
  { type: 'mock', remote: false },
];

/** One provider instance per channel type, owned by one Gateway (so its pools close with it). */
export function createProviders(mockImages: MockImageFiles, endpoints: EndpointRegistry): ReadonlyMap<ChannelType, Provider> {
  return new Map<ChannelType, Provider>([
    ['openai', createOpenAIProvider()],
    ['anthropic', createAnthropicProvider()],
    ['mock', createMockProvider(mockImages, endpoints)],
    ...endpoints.channelTypes.map((declared): [ChannelType, Provider] => [declared.type, declared.createProvider()]),
  ]);
}
