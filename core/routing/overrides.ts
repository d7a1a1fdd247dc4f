// The operator's run-time changes to channels (a feature stores and shares them; core only applies them): a channel
// taken out of routing, or its weight changed. Kept apart from ChannelHealth on purpose: a cool-down is the gateway's
// own judgement and ends by itself, an override is the operator's and holds until cleared (it wins over health).
// The router reads `snapshot` by reference and rebuilds its entries only when a new one is set, so a request pays a
// pointer comparison, never a lookup per channel.

/** One channel's override; a field left null keeps the YAML value. */
export interface ChannelOverride {
  /** true: the channel gets no request at all (not even as a last resort, unlike a cooling one). */
  readonly disabled: boolean;
  readonly weight: number | null;
}

export type OverrideSnapshot = ReadonlyMap<string, ChannelOverride>;

/** The process's current overrides, kept across config loads (a new Router reads them at once). */
export class ChannelOverrides {
  #snapshot: OverrideSnapshot = new Map();
  /** What the current snapshot was made from (the reader's text of it): the same again sets nothing. */
  #key = '';
  /** Tickets handed to reads of the store, and the newest one whose result is in force. */
  #tickets = 0;
  #appliedTicket = 0;

  get snapshot(): OverrideSnapshot {
    return this.#snapshot;
  }

  /** Replaces the whole set (never mutate a snapshot once set: routers compare it by reference). */
  set(next: OverrideSnapshot): void {
    this.#snapshot = next;
    this.#key = '';
  }

  /**
   * A ticket for a read of the stored overrides, taken before the read starts. Several reads run at once (the poll,
   * a notice, the instance that made the change), and the newest ticket's result wins. A change made on this
   * instance is always in it (its read's ticket is taken after its own commit). Across a pool of connections a newer
   * ticket's statement may run before an older one's and miss another instance's write the older saw: the next poll
   * (or the pass a notice asks for) reads it again within POLL_EVERY_MS, so it is late, never lost.
   */
  ticket(): number {
    return ++this.#tickets;
  }

  /**
   * The result of the read holding `ticket`: set unless a read that started later is already in force (a slow read
   * from before a change must not put the old overrides back), and only when `key` differs (routers rebuild on a new
   * snapshot only). true when it was set.
   */
  offer(ticket: number, key: string, build: () => OverrideSnapshot): boolean {
    if (ticket < this.#appliedTicket) return false;
    this.#appliedTicket = ticket;
    if (key === this.#key) return false;
    this.#snapshot = build();
    this.#key = key;
    return true;
  }
}
