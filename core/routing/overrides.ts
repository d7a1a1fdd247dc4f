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

  get snapshot(): OverrideSnapshot {
    return this.#snapshot;
  }

  /** Replaces the whole set (never mutate a snapshot once set: routers compare it by reference). */
  set(next: OverrideSnapshot): void {
    this.#snapshot = next;
  }
}
