// Channel health: a channel that failed is skipped for its cool-down, unless nothing else is left. Asked on every
// request, so it answers from this process's memory; with Redis, the fleet's cool-downs are copied into it as they
// happen (shared/redis-cooldowns.ts) and this process's go out through its `CooldownSink`.

/** Where this process's cool-downs are told to the other instances. */
export interface CooldownSink {
  cooled(channel: string, ms: number): void;
  /** A cooling channel served a request: it is healthy again. */
  cleared(channel: string): void;
}

export class ChannelHealth {
  private readonly cooledUntil = new Map<string, number>();
  /** Set once the fleet's cool-downs are shared (Redis). */
  sink: CooldownSink | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  isCooling(channel: string): boolean {
    const until = this.cooledUntil.get(channel);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.cooledUntil.delete(channel);
    return false;
  }

  markFailure(channel: string, cooldownMs: number): void {
    if (cooldownMs <= 0) return;
    this.cooledUntil.set(channel, this.now() + cooldownMs);
    this.sink?.cooled(channel, cooldownMs);
  }

  markSuccess(channel: string): void {
    // Told to the fleet only when it changes something: a success on a healthy channel is every request.
    if (this.cooledUntil.delete(channel)) this.sink?.cleared(channel);
  }

  /** Another instance's news: `ms` left of a cool-down, or 0 for healthy again. Not told back to the fleet. */
  apply(channel: string, ms: number): void {
    if (ms > 0) this.cooledUntil.set(channel, this.now() + ms);
    else this.cooledUntil.delete(channel);
  }
}
