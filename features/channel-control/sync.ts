// How an override reaches every instance within a second: the instance that stored it applies it at once and, with
// `redis` configured, publishes a notice on which every instance reads the table again at once; and each instance reads
// the table every 500 ms (one small table: a row per overridden channel). The table is the truth either way, so an
// instance that missed a notice (Redis out) is right again within the second, and a restart or a
// config reload starts from it (the process's ChannelOverrides outlives config loads; each new Router reads it).

import { createClient } from 'redis';
import { Counter } from 'prom-client';
import type { JobEnv } from '../../core/feature/feature.js';
import type { Service } from '../../core/lifecycle.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import type { ChannelOverride, OverrideSnapshot } from '../../core/routing/overrides.js';
import { slot, type Slot } from '../../core/slot.js';
import type { StoredOverride } from './override-store.js';
import { CHANNEL_CONTROL_STORE } from './store-part.js';

/**
 * Store polling's period, with or without Redis: well inside the one second an override may take to reach the fleet.
 * With Redis the notice makes it at once; the polling still runs, so a change made while Redis is out (its notice
 * lost) reaches every instance within the second too. A read of a few rows; the routers rebuild only on a change.
 */
export const POLL_EVERY_MS = 500;

/** A connection that retries by itself, its errors counted by the callers (who log what failed for them). */
function connectionTo(url: string) {
  const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(100 * (retries + 1), 2000) } });
  client.on('error', () => undefined);
  return client;
}
type Connection = ReturnType<typeof connectionTo>;

const topicOf = (prefix: string): string => `${prefix}channel-overrides`;

function snapshotOf(rows: readonly StoredOverride[]): OverrideSnapshot {
  return new Map<string, ChannelOverride>(rows.map((r) => [r.channel, { disabled: r.disabled, weight: r.weight }]));
}

/** Reads the table and hands the router a new snapshot when it changed (a rebuild only then). */
export class OverrideApplier {
  #lastKey = '';
  #lastSet: OverrideSnapshot | null = null;

  async apply(services: GatewayServices): Promise<void> {
    const rows = await services.store.part(CHANNEL_CONTROL_STORE).all();
    const key = JSON.stringify(rows.map((r) => [r.channel, r.disabled, r.weight]));
    const holder = services.router.overrides;
    // The holder's snapshot is another when this load's router has its own (a gateway started without serve).
    if (key === this.#lastKey && holder.snapshot === this.#lastSet) return;
    const next = snapshotOf(rows);
    holder.set(next);
    this.#lastKey = key;
    this.#lastSet = next;
  }
}

/** This config load's means of telling the fleet, and the changes' metric (a handler's services). */
export interface ChannelControl {
  /** Applies the table here now, then tells the other instances (Redis) or lets their polling find it. */
  changed(services: GatewayServices): Promise<void>;
  readonly changes: Counter<'action'>;
  close(): Promise<void>;
}

export const CHANNEL_CONTROL: Slot<ChannelControl> = slot('channel control');

export function channelControl(services: GatewayServices): ChannelControl {
  const registry = services.metrics.registry;
  const name = 'gateway_channel_override_changes_total';
  // The registry is the process's and outlives this load: the next load finds the counter made by the first.
  const changes =
    (registry.getSingleMetric(name) as Counter<'action'> | undefined) ??
    new Counter({ name, help: "The operator's run-time channel changes, by action: disable, enable, weight, clear.", labelNames: ['action'], registers: [registry] });
  const redis = services.config.redis;
  // Connected on the first change only: most loads never publish.
  let connecting: Promise<Connection> | null = null;
  const applier = new OverrideApplier();
  return {
    changes,
    async changed(current) {
      await applier.apply(current);
      if (redis === null) return;
      connecting ??= (async () => {
        const made = connectionTo(redis.url);
        await made.connect();
        return made;
      })();
      let client: Connection;
      try {
        client = await connecting;
      } catch (err) {
        connecting = null;
        throw err;
      }
      await client.publish(topicOf(redis.prefix), 'changed');
    },
    async close() {
      const made = await connecting?.catch(() => null);
      made?.destroy();
    },
  };
}

export interface SyncOptions {
  readonly pollEveryMs?: number;
}

/** The process's job: reads the table at start, then polls it, and follows the fleet's notices when Redis is there. */
export function overrideSync(env: JobEnv, options: SyncOptions = {}): Service {
  const applier = new OverrideApplier();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let subscriber: Connection | null = null;
  const pass = (): void => {
    running ??= applier
      .apply(env.services())
      .catch((err: unknown) => env.services().logger.warn({ err }, 'reading the channel overrides failed; the last ones stay in force'))
      .finally(() => (running = null));
  };
  return {
    name: 'channel overrides',
    async start() {
      // Before the listeners open: the first request already routes as the operator left it.
      await applier.apply(env.services());
      timer = setInterval(pass, options.pollEveryMs ?? POLL_EVERY_MS);
      timer.unref();
      const redis = env.services().config.redis;
      if (redis === null) return;
      const sub = connectionTo(redis.url);
      subscriber = sub;
      // Every (re)connection: what was missed meanwhile is in the table. node-redis subscribes again by itself.
      sub.on('ready', pass);
      sub.connect()
        .then(() => sub.subscribe(topicOf(redis.prefix), pass))
        .catch((err: unknown) => env.services().logger.warn({ err }, 'subscribing to channel override changes failed; Redis reconnects'));
    },
    async stop() {
      if (timer !== null) clearInterval(timer);
      subscriber?.destroy();
      await running;
    },
  };
}
