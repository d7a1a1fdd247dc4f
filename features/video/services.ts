// The video feature's services of one config load: the task upstream of each channel type that runs tasks (Ark's
// data plane, the mock), closed when the load retires; and what the task code reads, core's services with them.

import type { ChannelType } from '../../core/config/resolved.js';
import type { FeatureServices } from '../../core/feature/feature.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import { slot, type Slot } from '../../core/pipeline/slot.js';
import { createVideoUpstreams } from '../../core/providers/index.js';
import type { VideoUpstream } from '../../core/video/upstream.js';
import type { VideoDeps } from '../../core/video/video-deps.js';

export interface VideoServices {
  readonly upstreams: ReadonlyMap<ChannelType, VideoUpstream>;
}

export const VIDEO: Slot<VideoServices> = slot('video');

export const videoServices: FeatureServices<VideoServices> = {
  slot: VIDEO,
  create: () => ({ upstreams: createVideoUpstreams() }),
  close: async (services) => {
    await Promise.all([...services.upstreams.values()].map((upstream) => upstream.close()));
  },
};

/** What the task code reads (core/video): core's services and this load's task upstreams. */
export function videoDepsOf(services: GatewayServices): VideoDeps {
  return {
    config: services.config,
    store: services.store,
    router: services.router,
    videoUpstreams: services.feature(VIDEO).upstreams,
    assets: services.assets,
    logger: services.logger,
    resolveHost: services.resolveHost,
  };
}
