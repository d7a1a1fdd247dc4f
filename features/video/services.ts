// The video feature's services of one config load: the task upstream of each channel type that runs tasks (Ark's
// data plane, the mock), closed when the load retires; and what the task code reads, core's services with them.

import type { ChannelType } from '../../core/config/resolved.js';
import type { FeatureServices } from '../../core/feature/feature.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import { slot, type Slot } from '../../core/slot.js';
import { CONTENT_LINKS } from '../../core/feature/content-links.js';
import { GATEWAY_EVENTS } from '../../core/feature/gateway-events.js';
import { createArkVideoUpstream } from './data-plane.js';
import { createMockVideoUpstream } from './mock-tasks.js';
import type { VideoUpstream } from './upstream.js';
import type { VideoDeps } from './video-deps.js';

export interface VideoServices {
  readonly upstreams: ReadonlyMap<ChannelType, VideoUpstream>;
}

export const VIDEO: Slot<VideoServices> = slot('video');

export const videoServices: FeatureServices<VideoServices> = {
  slot: VIDEO,
  // Owned by one Gateway: their pools close with it.
  create: () => ({ upstreams: new Map<ChannelType, VideoUpstream>([['volcengine', createArkVideoUpstream()], ['mock', createMockVideoUpstream()]]) }),
  close: async (services) => {
    await Promise.all([...services.upstreams.values()].map((upstream) => upstream.close()));
  },
};

/** What the task code reads (submit.ts, settle.ts, poller.ts): core's services and this load's task upstreams. */
export function videoDepsOf(services: GatewayServices): VideoDeps {
  return {
    config: services.config,
    store: services.store,
    router: services.router,
    videoUpstreams: services.feature(VIDEO).upstreams,
    links: services.findFeature(CONTENT_LINKS),
    events: services.findFeature(GATEWAY_EVENTS),
    logger: services.logger,
    resolveHost: services.resolveHost,
    clock: services.clock,
  };
}
