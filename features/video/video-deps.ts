// What the video task code needs of a config load (the plugin's services, or the poller's current Gateway's).

import type { ContentLinks } from '../../core/feature/content-links.js';
import type { GatewayEvents } from '../../core/feature/gateway-events.js';
import type { HostResolver } from '../../core/http/public-url.js';
import type { ChannelType, ResolvedConfig } from '../../core/config/resolved.js';
import type { Logger } from '../../core/logging/logger.js';
import type { Router } from '../../core/routing/router.js';
import type { Store } from '../../core/store/store.js';
import type { VideoUpstream } from './upstream.js';

export interface VideoDeps {
  readonly config: ResolvedConfig;
  readonly store: Store;
  readonly router: Router;
  /** The task upstream of each channel type that runs tasks (volcengine, mock). */
  readonly videoUpstreams: ReadonlyMap<ChannelType, VideoUpstream>;
  /** What the task's `asset://` links resolve through: the feature keeping them (none: links are refused). */
  readonly links: ContentLinks | undefined;
  /** Where a failed task is told (video_failed): the feature delivering events, when there is one. */
  readonly events?: GatewayEvents | undefined;
  readonly logger: Logger;
  /** How a result URL's host is resolved, to refuse internal addresses before a download. */
  readonly resolveHost: HostResolver;
  /** The calendar clock (services.clock): which period of a periodic max_spend a submitted task counts in. */
  readonly clock: () => number;
}
