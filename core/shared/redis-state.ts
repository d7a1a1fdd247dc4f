// The gateway's connection to Redis, for what several instances share (limits, affinity bindings, cool-downs):
// one client that never queues commands while disconnected (a call fails at once and its caller's failure policy
// applies, rather than waiting for a reconnection) and reconnects by itself; this instance's heartbeat, which also
// counts the live instances (how `on_failure: open` divides a shared limit); and the renewal of whatever this
// instance holds that must expire if it dies (limit slots).

import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import type { Logger } from '../logging/logger.js';
import type { RedisScripting } from '../limits/redis-limiter.js';
import type { InstanceInfo, Instances } from './instances.js';
import { RedisGate } from './redis-gate.js';

/** How often this instance says it is alive, and renews what it holds. */
const HEARTBEAT_MS = 2000;
/** An instance not heard from for this long is gone. */
const INSTANCE_TTL_MS = 6000;

// KEYS: the instances set. ARGV: this instance's id, its ttl. Returns how many are alive.
const HEARTBEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
`;

export interface RedisStateOptions {
  readonly url: string;
  /** Prefix of every key this gateway writes. */
  readonly prefix: string;
  readonly logger: Logger;
  /** Called with each heartbeat (renew what this instance holds); its failures are the caller's to report. */
  readonly onHeartbeat?: () => Promise<void>;
  /** A heartbeat failed. */
  readonly onError?: (err: unknown) => void;
}

export class RedisState implements Instances {
  /** This process's id (its heartbeat's member). */
  readonly id = `gw-${randomUUID()}`;
  readonly client: ReturnType<typeof createClient>;
  /** Whether requests should wait on Redis now (shared/redis-gate.ts); the heartbeat's answers open it too. */
  readonly gate: RedisGate;
  readonly #options: RedisStateOptions;
  readonly #instancesKey: string;
  #live = 1;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: RedisStateOptions) {
    this.#options = options;
    this.#instancesKey = `${options.prefix}instances`;
    this.client = createClient({
      url: options.url,
      disableOfflineQueue: true,
      // A connection that went silent (packets dropped, no reset) is found by its pings and its socket's idleness,
      // then reconnected, rather than kept ready while every call times out.
      pingInterval: 1000,
      socket: { connectTimeout: 1000, socketTimeout: 5000, reconnectStrategy: (retries: number) => Math.min(100 * (retries + 1), 2000) },
    });
    this.gate = new RedisGate(() => this.client.isReady);
    // Without a listener a connection error would be thrown as an unhandled 'error' event. The cause (refused, a
    // wrong password) is logged, at most every 30 s; the callers count what failed for them.
    let loggedAt = 0;
    this.client.on('error', (err: unknown) => {
      if (Date.now() - loggedAt < 30_000) return;
      loggedAt = Date.now();
      options.logger.warn({ err }, 'Redis connection error');
    });
  }

  /** Instances alive at the last heartbeat (this one included); 1 until Redis first answers. */
  get liveInstances(): number {
    return this.#live;
  }

  /** The scripting commands the shared limiter needs. */
  get scripting(): RedisScripting {
    return this.client;
  }

  /** Connects in the background (a Redis that is down at start is retried, never waited for) and starts the heartbeat. */
  start(): void {
    this.client.connect().catch((err: unknown) => this.#options.onError?.(err));
    void this.#beat();
    this.#timer = setInterval(() => void this.#beat(), HEARTBEAT_MS);
    this.#timer.unref();
  }

  /** Resolves once connected, or after `ms` (a Redis that is down at start is not waited for longer). */
  async ready(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.client.isReady && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    // The first heartbeat (the live instances' count), bounded too.
    if (this.client.isReady) await Promise.race([this.#beat(), new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())))]);
    return this.client.isReady;
  }

  /** The instances whose heartbeat has not expired (GET /admin/instances); this one among them while it beats. */
  async list(): Promise<InstanceInfo[]> {
    const ids = await this.client.zRangeByScore(this.#instancesKey, Date.now(), '+inf');
    return ids.sort().map((id) => ({ id, self: id === this.id }));
  }

  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    try {
      if (this.client.isReady) await this.client.zRem(this.#instancesKey, this.id);
    } catch {
      // Its heartbeat expires by itself.
    }
    this.client.destroy();
  }

  async #beat(): Promise<void> {
    if (!this.client.isReady) return;
    try {
      this.#live = Math.max(1, Number(await this.client.eval(HEARTBEAT, { keys: [this.#instancesKey], arguments: [this.id, String(INSTANCE_TTL_MS)] })));
      this.gate.answered();
      await this.#options.onHeartbeat?.();
    } catch (err) {
      this.#options.onError?.(err);
    }
  }
}
