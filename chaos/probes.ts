// What the end of a chaos run reads from the fleet's own state: Redis's open concurrency slots, the instances'
// in-flight gauges and channel health changes, the store's unsettled video tasks, and whether the fleet wrote to a
// restarted Redis again.

import pg from 'pg';
import { createClient } from 'redis';
import type { Instance } from './fleet.js';

type Client = ReturnType<typeof connectTo>;

function connectTo(url: string) {
  return createClient({ url });
}

async function withRedis<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = connectTo(url);
  await client.connect();
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
}

/** Members of the rate limiter's slot sets (`<prefix>rs:{subject}`, scored by expiry) whose expiry is still ahead. */
export function openSlots(url: string, prefix: string): Promise<number> {
  return withRedis(url, async (client) => {
    let open = 0;
    const now = Date.now();
    for await (const keys of client.scanIterator({ MATCH: `${prefix}rs:*`, COUNT: 1000 })) {
      for (const key of keys) open += await client.zCount(key, now, '+inf');
    }
    return open;
  });
}

/** Whether the limiter's buckets (`<prefix>rl:*`) are in Redis: after a restart of Redis, the fleet wrote to it again. */
export function limiterKeys(url: string, prefix: string): Promise<number> {
  return withRedis(url, async (client) => {
    let n = 0;
    for await (const keys of client.scanIterator({ MATCH: `${prefix}rl:*`, COUNT: 1000 })) n += keys.length;
    return n;
  });
}

/** The sum of `gateway_limited_requests_in_flight` over the instances (their /metrics). */
export async function inFlightGauge(instances: readonly Instance[]): Promise<number> {
  let sum = 0;
  for (const instance of instances) {
    const text = await (await fetch(`${instance.url}/metrics`)).text();
    for (const line of text.split('\n')) if (line.startsWith('gateway_limited_requests_in_flight{')) sum += Number(line.split(' ').pop());
  }
  return sum;
}

/** Video tasks not settled, or settled without their record written yet. */
export async function unsettledTasks(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>('SELECT count(*) AS n FROM video_tasks WHERE settled_at IS NULL OR (upstream_id IS NOT NULL AND recorded_at IS NULL)');
    return Number(result.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * `gateway_channel_health_changes_total` summed over the instances, by `<channel> <change>` (errors, probe_failed,
 * probe_served): each change counted once, by the instance whose script made it.
 */
export async function healthChanges(instances: readonly Instance[]): Promise<Map<string, number>> {
  const sums = new Map<string, number>();
  for (const instance of instances) {
    const text = await (await fetch(`${instance.url}/metrics`)).text();
    for (const line of text.split('\n')) {
      const labels = /^gateway_channel_health_changes_total\{(.*)\} (\S+)$/.exec(line);
      if (labels === null) continue;
      const channel = /channel="([^"]*)"/.exec(labels[1] ?? '')?.[1];
      const change = /change="([^"]*)"/.exec(labels[1] ?? '')?.[1];
      const key = `${channel} ${change}`;
      sums.set(key, (sums.get(key) ?? 0) + Number(labels[2]));
    }
  }
  return sums;
}
