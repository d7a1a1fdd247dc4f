// Channel health: a channel that failed is skipped for its cool-down, unless nothing else is left.

export class ChannelHealth {
  private readonly cooledUntil = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  isCooling(channel: string): boolean {
    const until = this.cooledUntil.get(channel);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.cooledUntil.delete(channel);
    return false;
  }

  markFailure(channel: string, cooldownMs: number): void {
    if (cooldownMs > 0) this.cooledUntil.set(channel, this.now() + cooldownMs);
  }

  markSuccess(channel: string): void {
    this.cooledUntil.delete(channel);
  }
}
