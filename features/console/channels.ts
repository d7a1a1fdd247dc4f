// GET /console/api/channels: each channel of the running config with its health as the operator watches it: cooling
// down (and for how long); on this instance, requests in flight and the upstream attempts of the last hour with the
// failed ones (failed-over attempts included); and fleet-wide, from the hourly sums, the requests it answered, their
// errors and mean latency since the start of the previous hour.

import type { GatewayServices } from '../../core/pipeline/plugin.js';
import { HOUR_MS } from '../../core/console/query-params.js';

export async function channelsAnswer(services: GatewayServices, now = Date.now()): Promise<Record<string, unknown>> {
  const since = Math.floor(now / HOUR_MS) * HOUR_MS - HOUR_MS;
  const sums = new Map<string, { requests: number; errors: number; latencyMs: number }>();
  for (const row of await services.store.hourlyUsage({ from: since, to: since + 2 * HOUR_MS })) {
    if (row.channel === null) continue;
    const sum = sums.get(row.channel) ?? { requests: 0, errors: 0, latencyMs: 0 };
    sum.requests += row.requests;
    sum.errors += row.errors;
    sum.latencyMs += row.latencyMs;
    sums.set(row.channel, sum);
  }
  const { health } = services.router;
  return {
    object: 'list',
    since: new Date(since).toISOString(),
    data: services.config.channels.map((channel) => {
      const sum = sums.get(channel.name) ?? { requests: 0, errors: 0, latencyMs: 0 };
      const left = health.coolingLeftMs(channel.name);
      const recent = services.channelLoad.recent(channel.name);
      return {
        name: channel.name,
        type: channel.type,
        priority: channel.priority,
        models: [...channel.models.patterns, ...channel.models.aliases.keys()],
        cooling: left > 0,
        cooldown_left_ms: left,
        in_flight: services.channelLoad.inFlight(channel.name),
        attempts: {
          window_minutes: recent.windowMinutes,
          attempts: recent.attempts,
          failures: recent.failures,
          // An attempt counts in the minute it began, its failure in the minute it failed: at the window's edge the
          // failures may outnumber the attempts.
          failure_rate: recent.attempts === 0 ? 0 : Math.min(1, recent.failures / recent.attempts),
        },
        last_hour: {
          requests: sum.requests,
          errors: sum.errors,
          error_rate: sum.requests === 0 ? 0 : sum.errors / sum.requests,
          avg_latency_ms: sum.requests === 0 ? null : Math.round(sum.latencyMs / sum.requests),
        },
      };
    }),
  };
}
