// Channel health: a channel that failed is skipped for its cool-down, unless nothing else is left. Asked on every
// request, so it answers from this process's memory; with Redis, the fleet's cool-downs are copied into it as they
// happen (shared/redis-cooldowns.ts) and this process's go out through its `CooldownSink`.

import { performance } from 'node:perf_hooks';

/** Where this process's cool-downs are told to the other instances. */
export interface CooldownSink {
  cooled(channel: string, ms: number): void;
  /** A cooling channel served a request: it is healthy again. */
  cleared(channel: string): void;
}

/** A cool-down told to the fleet again only when it extends what was told by this much: not once per failure. */
const RETELL_MS = 1000;

interface Cooling {
  readonly until: number;
  /** When its last failure was seen: a success of a request sent before that does not end it. */
  readonly since: number;
  /** When the fleet last heard of it (told, or telling us): a failure since then is this process's alone. */
  readonly toldAt: number;
  /** The end the fleet last heard of. */
  readonly toldUntil: number;
}

export class ChannelHealth {
  private readonly cooling = new Map<string, Cooling>();
  /** Set once the fleet's cool-downs are shared (Redis). */
  sink: CooldownSink | null = null;

  constructor(private readonly now: () => number = () => performance.now()) {}

  isCooling(channel: string): boolean {
    const entry = this.cooling.get(channel);
    if (entry === undefined) return false;
    if (entry.until > this.now()) return true;
    this.cooling.delete(channel);
    return false;
  }

  /** What is left of the channel's cool-down, in ms (0: healthy). */
  coolingLeftMs(channel: string): number {
    return this.isCooling(channel) ? Math.ceil((this.cooling.get(channel)?.until ?? 0) - this.now()) : 0;
  }

  markFailure(channel: string, cooldownMs: number): void {
    if (cooldownMs <= 0) return;
    const now = this.now();
    const until = now + cooldownMs;
    const entry = this.isCooling(channel) ? this.cooling.get(channel) : undefined;
    if (entry === undefined || until - entry.toldUntil >= RETELL_MS) {
      this.cooling.set(channel, { until, since: now, toldAt: now, toldUntil: until });
      this.sink?.cooled(channel, cooldownMs);
    } else {
      this.cooling.set(channel, { until, since: now, toldAt: entry.toldAt, toldUntil: entry.toldUntil });
    }
  }

  /**
   * A request sent at `sentAt` (this clock) was served: the channel is healthy again, unless it failed after that
   * request was sent (an answer to a request sent before the failure says nothing about the channel since).
   */
  markSuccess(channel: string, sentAt: number = this.now()): void {
    const entry = this.cooling.get(channel);
    if (entry === undefined || sentAt < entry.since) return;
    this.cooling.delete(channel);
    // Told to the fleet only when it changes something: a success on a healthy channel is every request.
    this.sink?.cleared(channel);
  }

  /**
   * The fleet's news (this process's own included, as Redis ordered it): `ms` left of a cool-down, or 0 for healthy
   * again. A cool-down only grows by news; a recovery does not end a failure this process saw after the fleet last
   * heard from it (that failure is told instead, so the fleet ends agreeing).
   */
  apply(channel: string, ms: number): void {
    const now = this.now();
    const entry = this.isCooling(channel) ? this.cooling.get(channel) : undefined;
    if (ms > 0) {
      const until = Math.max(entry?.until ?? 0, now + ms);
      this.cooling.set(channel, { until, since: now, toldAt: now, toldUntil: until });
      return;
    }
    if (entry === undefined) return;
    if (entry.since <= entry.toldAt) {
      this.cooling.delete(channel);
      return;
    }
    this.cooling.set(channel, { until: entry.until, since: entry.since, toldAt: now, toldUntil: entry.until });
    this.sink?.cooled(channel, entry.until - now);
  }
}
