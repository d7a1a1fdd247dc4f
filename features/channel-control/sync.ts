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
import { within } from '../../core/shared/within.js';
import { slot, type Slot } from '../../core/slot.js';
import type { StoredOverride } from './override-store.js';
import { Passes } from './passes.js';
import { CHANNEL_CONTROL_STORE } from './store-part.js';

/**
 * Store polling's period, with or without Redis: well inside the one second an override may take to reach the fleet.
 * With Redis the notice makes it at once; the polling still runs, so a change made while Redis is out (its notice
 * lost) reaches every instance within the second too. A read of a few rows; the routers rebuild only on a change.
 */
export const POLL_EVERY_MS = 500;

/** How long a change's answer waits for its notice to leave: the change is stored, and the polling carries it anyway. */
export const PUBLISH_WITHIN_MS = 1000;

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

/**
 * Reads the table and offers it to the process's overrides (a rebuild of the routers only on a change). The ticket is
 * taken before the read: of reads running at once (the poll, a notice, a change made here), a slow one from before a
 * change is not applied over a newer one's result.
 */
export async function applyOverrides(services: GatewayServices): Promise<void> {
  const holder = services.router.overrides;
  const ticket = holder.ticket();
  const rows = await services.store.part(CHANNEL_CONTROL_STORE).all();
  holder.offer(ticket, JSON.stringify(rows.map((r) => [r.channel, r.disabled, r.weight])), () => snapshotOf(rows));
}

/** The change is in force here; only the notice to the other instances failed (their polling reads it anyway). */
export class FleetNotTold extends Error {
  constructor(cause: unknown) {
    super('the other instances were not told of the change (Redis)', { cause });
    this.name = 'FleetNotTold';
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
  // Made on the first change only (most loads never publish); it reconnects by itself after.
  let client: Connection | null = null;
  let connected: Promise<void> = Promise.resolve();
  /** Bounded throughout: while Redis is out the client waits for it forever, and the operator's answer must not. */
  const publish = async (redis: NonNullable<GatewayServices['config']['redis']>): Promise<void> => {
    if (client === null) {
      const made = connectionTo(redis.url);
      client = made;
      connected = made.connect().then(
        () => undefined,
        () => undefined,
      );
    }
    const made = client;
    if (!made.isReady) await within(connected, PUBLISH_WITHIN_MS).catch(() => undefined);
    if (!made.isReady) {
      // Given up (not retrying): the next change makes a new one.
      if (!made.isOpen) client = null;
      throw new Error('Redis is not connected');
    }
    try {
      await within(made.publish(topicOf(redis.prefix), 'changed'), PUBLISH_WITHIN_MS);
    } catch (err) {
      // A connection gone silent (no reset) still says ready: dropped, so the next change does not wait on it too.
      if (client === made) client = null;
      if (made.isOpen) made.destroy();
      throw err;
    }
  };
  return {
    changes,
    async changed(current) {
      await applyOverrides(current);
      if (redis === null) return;
      try {
        await publish(redis);
      } catch (err) {
        throw new FleetNotTold(err);
      }
    },
    async close() {
      if (client?.isOpen === true) client.destroy();
      return Promise.resolve();
    },
  };
}

export interface SyncOptions {
  readonly pollEveryMs?: number;
}

/** The process's job: reads the table at start, then polls it, and follows the fleet's notices when Redis is there. */
export function overrideSync(env: JobEnv, options: SyncOptions = {}): Service {
  let timer: NodeJS.Timeout | null = null;
  let subscriber: Connection | null = null;
  const passes = new Passes(
    () => applyOverrides(env.services()),
    (err) => env.services().logger.warn({ err }, 'reading the channel overrides failed; the last ones stay in force'),
  );
  const tick = (): void => passes.ask(false);
  const notice = (): void => passes.ask(true);
  return {
    name: 'channel overrides',
    async start() {
      // Before the listeners open: the first request already routes as the operator left it.
      await applyOverrides(env.services());
      timer = setInterval(tick, options.pollEveryMs ?? POLL_EVERY_MS);
      timer.unref();
      const redis = env.services().config.redis;
      if (redis === null) return;
      const sub = connectionTo(redis.url);
      subscriber = sub;
      // Every (re)connection: what was missed meanwhile is in the table. node-redis subscribes again by itself.
      sub.on('ready', notice);
      sub.connect()
        .then(() => sub.subscribe(topicOf(redis.prefix), notice))
        .catch((err: unknown) => {
          // Not when stop() destroyed it before it connected: nothing failed then.
          if (subscriber === sub) env.services().logger.warn({ err }, 'subscribing to channel override changes failed; Redis reconnects');
        });
    },
    async stop() {
      if (timer !== null) clearInterval(timer);
      const sub = subscriber;
      subscriber = null;
      sub?.destroy();
      await passes.stop();
    },
  };
}
