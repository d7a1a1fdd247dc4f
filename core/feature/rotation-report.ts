// What a change of a channel's rotation (rotation.ts) is told as, by the instance that made it (with Redis, the one
// whose script flipped it: once per fleet): a log line, a count by channel and change, and the webhooks
// channel_down (taken out by its window) and channel_up (back after a probe, or put back by an operator, who is named
// in the log). A failed probe keeps it down: logged and counted, no new event.

import type { GatewayEvents } from './gateway-events.js';
import type { Logger } from '../logging/logger.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { RotationChange } from '../routing/rotation.js';

export interface RotationReportDeps {
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
  /** The webhooks feature's, when it runs (read at each change: a reload may add or drop it). */
  readonly events: () => GatewayEvents | undefined;
  /** A channel name of the current config (a metric label only then: bounded). */
  readonly known: (channel: string) => boolean;
}

export function reportRotationChange(deps: RotationReportDeps, change: RotationChange): void {
  if (!deps.known(change.channel)) return;
  deps.metrics.channelHealthChanges.inc({ channel: change.channel, change: change.reason });
  const line = { channel: change.channel, reason: change.reason, failures: change.failures, probeInMs: change.backoffMs };
  if (change.reason === 'reset') deps.logger.info(Object.assign(line, { by: change.by ?? null }), `channel ${change.channel} is back in rotation: put back by ${change.by ?? 'an operator'}`);
  else if (change.state === 'in') deps.logger.info(line, `channel ${change.channel} is back in rotation: its probe was served`);
  else if (change.reason === 'errors') deps.logger.warn(line, `channel ${change.channel} is out of rotation after ${change.failures} failures; probed in ${change.backoffMs} ms`);
  else deps.logger.warn(line, `channel ${change.channel} stays out of rotation: its probe failed; probed again in ${change.backoffMs} ms`);
  if (change.reason === 'probe_failed') return;
  const type = change.state === 'in' ? 'channel_up' : 'channel_down';
  const data = change.state === 'in' ? { channel: change.channel } : { channel: change.channel, failures: change.failures, probe_in_ms: change.backoffMs };
  deps.events()?.emit({ type, key: `${type}:${change.channel}:${change.serial}`, data }).catch((err: unknown) => {
    deps.logger.warn({ err, channel: change.channel }, `keeping the ${type} webhook failed`);
  });
}
