// GET /console/api/channels: each channel of the running config with its health as the operator watches it: cooling
// down (and for how long), requests in flight on this instance, and, fleet-wide from the hourly sums, requests,
// errors, error rate and mean latency since the start of the previous hour.

import type { GatewayServices } from '../../core/index.js';

const HOUR_MS = 3_600_000;

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
      return {
        name: channel.name,
        type: channel.type,
        priority: channel.priority,
        models: [...channel.models.patterns, ...channel.models.aliases.keys()],
        cooling: left > 0,
        cooldown_left_ms: left,
        in_flight: services.channelLoad.inFlight(channel.name),
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
