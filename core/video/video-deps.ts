// What the video task code needs of a config load (the plugin's services, or the poller's current Gateway's).

import type { AssetLibraries } from '../assets/libraries.js';
import type { HostResolver } from '../http/public-url.js';
import type { ChannelType, ResolvedConfig } from '../config/resolved.js';
import type { Logger } from '../logging/logger.js';
import type { Router } from '../routing/router.js';
import type { Store } from '../store/store.js';
import type { VideoUpstream } from './upstream.js';

export interface VideoDeps {
  readonly config: ResolvedConfig;
  readonly store: Store;
  readonly router: Router;
  /** The task upstream of each channel type that runs tasks (volcengine, mock). */
  readonly videoUpstreams: ReadonlyMap<ChannelType, VideoUpstream>;
  readonly assets: AssetLibraries;
  readonly logger: Logger;
  /** How a result URL's host is resolved, to refuse internal addresses before a download. */
  readonly resolveHost: HostResolver;
}
