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
import { RedisTimeout, within } from './within.js';
import { performance } from 'node:perf_hooks';

/** How often this instance says it is alive, and renews what it holds. */
const HEARTBEAT_MS = 2000;
/** An instance not heard from for this long is gone. */
const INSTANCE_TTL_MS = 6000;
/**
 * A heartbeat not answered within this means the connection is dead without saying so (a frozen server, a
 * blackholed route: node-redis's pings wait forever for their answer, and the writes keep the socket from idling
 * out): it is dropped and made anew. A Redis that is only slow answers it, and keeps its connection.
 */
const HEARTBEAT_WAIT_MS = 1500;
/** The longest a shutdown or GET /admin/instances waits on Redis. */
const ADMIN_WAIT_MS = 1000;

// KEYS: the instances set. ARGV: this instance's id, its ttl. Returns how many are alive.
const HEARTBEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
`;

// KEYS: the instances set. Returns the ids alive now, on Redis's clock (the one their expiries were written on).
const LIST = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')
`;

export interface RedisStateOptions {
  readonly url: string;
  /** Prefix of every key this gateway writes. */
  readonly prefix: string;
  readonly logger: Logger;
  /** Called with each heartbeat (renew what this instance holds); its failures are the caller's to report. */
  readonly onHeartbeat?: () => Promise<void>;
  /** A request's longest wait on Redis, ms: a heartbeat slower than this does not reopen the gate. */
  readonly answerMs: number;
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
  /** Told when the connection is dropped and made anew (a subscriber on the same server does the same). */
  readonly #recycled: (() => void)[] = [];

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
  /** Connected, and answering its pings (node-redis reconnects a connection that went silent). */
  get connected(): boolean {
    return this.client.isReady;
  }

  async ready(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.client.isReady && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    // The first heartbeat (the live instances' count), bounded too.
    if (this.client.isReady) await Promise.race([this.#beat(), new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())))]);
    return this.client.isReady;
  }

  /** The instances whose heartbeat has not expired (GET /admin/instances); this one among them while it beats. */
  async list(): Promise<InstanceInfo[]> {
    const ids = (await within(this.client.eval(LIST, { keys: [this.#instancesKey], arguments: [] }), ADMIN_WAIT_MS)) as string[];
    return ids.sort().map((id) => ({ id, self: id === this.id }));
  }

  /** `listener` is called each time the connection is dropped and made anew. */
  onRecycled(listener: () => void): void {
    this.#recycled.push(listener);
  }

  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    try {
      if (this.client.isReady) await within(this.client.zRem(this.#instancesKey, this.id), ADMIN_WAIT_MS);
    } catch {
      // Its heartbeat expires by itself.
    }
    this.client.destroy();
  }

  async #beat(): Promise<void> {
    if (!this.client.isReady) return;
    const started = performance.now();
    try {
      await within(
        (async () => {
          this.#live = Math.max(1, Number(await this.client.eval(HEARTBEAT, { keys: [this.#instancesKey], arguments: [this.id, String(INSTANCE_TTL_MS)] })));
          // Only an answer a request could have waited for: a slow Redis stays skipped.
          if (performance.now() - started < this.#options.answerMs) this.gate.answered();
          await this.#options.onHeartbeat?.();
        })(),
        HEARTBEAT_WAIT_MS,
      );
    } catch (err) {
      this.#options.onError?.(err);
      if (err instanceof RedisTimeout) this.#recycle();
    }
  }

  /** Drops a connection that no longer answers and makes a new one (pending calls fail at once). */
  #recycle(): void {
    this.#options.logger.warn('Redis stopped answering on an open connection; reconnecting');
    if (this.client.isOpen) this.client.destroy();
    this.gate.timedOut();
    this.client.connect().catch((err: unknown) => this.#options.onError?.(err));
    for (const listener of this.#recycled) listener();
  }
}
