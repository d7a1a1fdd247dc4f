// Whether a request should wait on Redis now. Calls to a Redis that is disconnected fail at once (no offline queue),
// but one that stopped answering on an open connection would cost every request the full timeout until the
// connection is found dead (seconds). So a call that timed out closes the gate: requests then go straight to their
// failure behaviour, and one call every PROBE_MS (and every heartbeat) is let through to find out whether Redis
// answers again; the first answer opens it.

import { performance } from 'node:perf_hooks';

/** How often a request is let through to a Redis that timed out, ms. */
const PROBE_MS = 250;

export class RedisGate {
  readonly #connected: () => boolean;
  readonly #now: () => number;
  #stalled = false;
  #probedAt = 0;

  // Monotonic: a wall clock stepped back must not hold the gate shut.
  constructor(connected: () => boolean, now: () => number = () => performance.now()) {
    this.#connected = connected;
    this.#now = now;
  }

  /** Whether this call should go to Redis (and wait for it, bounded). */
  open(): boolean {
    if (!this.#connected()) return false;
    if (!this.#stalled) return true;
    const now = this.#now();
    if (now - this.#probedAt < PROBE_MS) return false;
    this.#probedAt = now;
    return true;
  }

  /** A call did not answer within its bound. */
  timedOut(): void {
    if (!this.#stalled) this.#probedAt = this.#now();
    this.#stalled = true;
  }

  /** A call answered within its bound. */
  answered(): void {
    this.#stalled = false;
  }
}
