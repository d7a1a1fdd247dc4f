// Round-robin over a channel's upstream keys, so load and rate limits spread evenly.

export class KeyRotation {
  private readonly next = new Map<string, number>();

  /** The index of the key to use next among `count` keys (0 when there are none). */
  pickIndex(channel: string, count: number): number {
    if (count <= 1) return 0;
    const i = this.next.get(channel) ?? 0;
    this.next.set(channel, (i + 1) % count);
    return i % count;
  }

  pick(channel: string, keys: readonly string[]): string {
    return keys[this.pickIndex(channel, keys.length)] ?? '';
  }
}
