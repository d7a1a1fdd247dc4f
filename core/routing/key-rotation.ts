// Round-robin over a channel's upstream keys, so load and rate limits spread evenly.

export class KeyRotation {
  private readonly next = new Map<string, number>();

  pick(channel: string, keys: readonly string[]): string {
    if (keys.length === 0) return '';
    const i = this.next.get(channel) ?? 0;
    this.next.set(channel, (i + 1) % keys.length);
    return keys[i % keys.length] ?? '';
  }
}
