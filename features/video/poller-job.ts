// The video poller as the feature's background job: every tick this instance leases the unsettled tasks that are
// due and reads each from its upstream (poller.ts), one instance at a time per task.

import type { JobEnv } from '../../core/feature/feature.js';
import type { Service } from '../../core/lifecycle.js';
import { VideoPoller } from './poller.js';
import { videoDepsOf } from './services.js';

/** `tickMs`: how often it looks for due tasks (tests look often); default the poll interval, at most 1 s. */
export function videoPollerJob(env: JobEnv, tickMs?: number): Service {
  const poller = new VideoPoller({ owner: env.instance, deps: () => videoDepsOf(env.services()), ...(tickMs === undefined ? {} : { tickMs }) });
  return { name: 'video poller', start: () => poller.start(), stop: () => poller.stop() };
}
