// Channel rotation (issue 45): a channel that failed `errors` of its last `window` requests is taken out: it gets no
// request at all until its back-off ends; then exactly one real request probes it. A success puts it back (its window
// starts empty), a failure takes it out again for twice as long, up to probe_max_ms. Asked on every request, so it
// answers from this process's memory; with Redis the window is counted fleet-wide and every change is copied into it
// (shared/redis-rotation.ts). Unlike the one-failure cool-down (health.ts: tried last, never left out), a channel out
// of rotation is left out of the plan.

import { performance } from 'node:perf_hooks';
import type { ResolvedHealth } from '../config/resolved.js';

export type RotationState = 'in' | 'out' | 'probing';

/** What an answer says of its channel: its fault, fine, or nothing (the caller's 4xx). */
export type Outcome = 'failed' | 'served' | 'neutral';

/** A change of a channel's state, as the instance that made it saw it. */
export interface RotationChange {
  readonly channel: string;
  /** out: taken out (by its window, or a failed probe); in: a probe succeeded, or an operator put it back. */
  readonly state: 'out' | 'in';
  readonly reason: 'errors' | 'probe_failed' | 'probe_served' | 'reset';
  /** The wait until the next probe (0 when back in). */
  readonly backoffMs: number;
  /** Failures in the window when it was taken out by its window. */
  readonly failures: number;
  /** Distinct for each change of this channel (the fleet's count with Redis): a webhook's occurrence key. */
  readonly serial: string;
  /** Who put it back (reason `reset`): the operator's name, for the log. */
  readonly by?: string;
}

/** Where the outcomes go when the fleet shares the state (Redis); `false` when it cannot take them now. */
export interface RotationSink {
  outcome(channel: string, health: ResolvedHealth, outcome: Outcome, probe: boolean): boolean;
  /**
   * Whether this instance may send the one probe of the channel's time out `serial` (SET NX): another instance took
   * it otherwise. Per time out: an instance that has not heard of the probe's outcome yet cannot take a second one.
   */
  claimProbe(channel: string, serial: string, leaseMs: number): Promise<boolean>;
  /** Gives the probe of time out `serial` back (its request sent nothing, or gave up): another may take it at once. */
  releaseProbe(channel: string, serial: string): void;
  /** Puts the channel back in rotation fleet-wide (an operator's word): the change when it was out, else null. */
  reset(channel: string, by: string): Promise<RotationChange | null>;
}

interface Out {
  /** When it is due for a probe (this clock). */
  readonly until: number;
  readonly backoffMs: number;
  /** Until when a probe is in flight (here or elsewhere): nobody else sends one meanwhile. */
  readonly probingUntil: number;
  /** Which time out of the channel this is (the fleet's count of its changes with Redis). */
  readonly serial: string;
}

/**
 * A probe that never told its outcome (its instance died) is given up after this; another may then be sent. The
 * least: a channel whose requests may run longer (its timeout) holds its probe that long (probeLeaseMs).
 */
export const PROBE_LEASE_MS = 120_000;

/** Past the channel's own timeout: the time to read the answer's end and tell the outcome. */
const PROBE_LEASE_MARGIN_MS = 30_000;

/** How long a probe of a channel whose requests may take `timeoutMs` is held: never shorter than the request itself. */
export function probeLeaseMs(timeoutMs: number): number {
  return Math.max(PROBE_LEASE_MS, timeoutMs + PROBE_LEASE_MARGIN_MS);
}

/** What a caller refused while a probe is in flight is told to wait: its outcome is near. */
const PROBING_RETRY_MS = 1000;

export interface ChannelHealthState {
  readonly state: RotationState;
  /** When it is due for a probe, ms from now (0 when in or probing). */
  readonly dueInMs: number;
  readonly failures: number;
  readonly window: number;
}

export class ChannelRotation {
  /** The last outcomes of each channel in rotation (true: failed), at most its window long. */
  private readonly windows = new Map<string, boolean[]>();
  private readonly out = new Map<string, Out>();
  private serial = 0;
  /** Set once the fleet shares the state (Redis). */
  sink: RotationSink | null = null;
  /** Told of each change this instance made (the one that flipped it, with Redis): logged, counted, told as a webhook. */
  onChange: (change: RotationChange) => void = () => undefined;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Some channel is out of rotation (here, or told by the fleet): plan() looks at each only then. */
  get anyOut(): boolean {
    return this.out.size > 0;
  }

  /** in: route to it; out: leave it out; due: one probe may be claimed (claimProbe). A memory read. */
  check(channel: string): 'in' | 'out' | 'due' {
    const entry = this.out.get(channel);
    if (entry === undefined) return 'in';
    const now = this.now();
    return entry.until > now || entry.probingUntil > now ? 'out' : 'due';
  }

  /** ms until the channel's probe is due (0 when it is in, or due; a second while its probe is in flight). */
  dueInMs(channel: string): number {
    const entry = this.out.get(channel);
    if (entry === undefined) return 0;
    const now = this.now();
    if (entry.probingUntil > now) return PROBING_RETRY_MS;
    return Math.max(0, Math.ceil(entry.until - now));
  }

  /**
   * Takes the probe of a due channel for `leaseMs` (probeLeaseMs): true when this request is to send it (nobody else
   * does meanwhile). Its sender then records its outcome, or gives it back (releaseProbe) when it sends nothing.
   */
  claimProbe(channel: string, leaseMs: number = PROBE_LEASE_MS): boolean | Promise<boolean> {
    const entry = this.out.get(channel);
    const now = this.now();
    if (entry === undefined || entry.until > now || entry.probingUntil > now) return false;
    // Taken here first, synchronously: this instance's other requests skip it while the fleet is asked.
    this.out.set(channel, { until: entry.until, backoffMs: entry.backoffMs, probingUntil: now + leaseMs, serial: entry.serial });
    if (this.sink === null) return true;
    // Redis that cannot answer: this instance probes on its own, as without Redis.
    return this.sink.claimProbe(channel, entry.serial, leaseMs).catch(() => true);
  }

  /**
   * The probe a request claimed but will not tell the outcome of (it sent nothing: a refused translation, a client
   * gone, an error not the channel's): due again at once, here and fleet-wide, not after the lease.
   */
  releaseProbe(channel: string): void {
    const entry = this.out.get(channel);
    if (entry === undefined || entry.probingUntil === 0) return;
    this.out.set(channel, { until: entry.until, backoffMs: entry.backoffMs, probingUntil: 0, serial: entry.serial });
    this.sink?.releaseProbe(channel, entry.serial);
  }

  /**
   * Another instance gave back the probe of time out `serial` (it sent nothing): this instance, which may have lost the
   * claim to it, may claim it now instead of waiting out the lease.
   */
  probeReleased(channel: string, serial: string): void {
    const entry = this.out.get(channel);
    if (entry === undefined || entry.serial !== serial || entry.probingUntil === 0) return;
    this.out.set(channel, { until: entry.until, backoffMs: entry.backoffMs, probingUntil: 0, serial });
  }

  /**
   * An operator's word: the channel is back in rotation now, its window empty (fleet-wide with Redis: `fleet`; this
   * instance's otherwise). The change when it was out (told as any other: logged, counted, channel_up), null when in.
   */
  async reset(channel: string, by: string): Promise<{ readonly change: RotationChange | null; readonly fleet: boolean }> {
    if (this.sink !== null) {
      try {
        const change = await this.sink.reset(channel, by);
        // Applied here at once (the fleet's notice follows), whether it was out here or only in the fleet.
        this.taken(channel, 0);
        if (change !== null) this.onChange(change);
        return { change, fleet: true };
      } catch {
        // Redis that cannot answer: this instance's own, as every change while Redis is out.
      }
    }
    const wasOut = this.out.has(channel);
    this.windows.delete(channel);
    if (!wasOut) return { change: null, fleet: false };
    const change: RotationChange = Object.assign(this.change(channel, 'in', 'reset', 0, 0), { by });
    this.onChange(change);
    return { change, fleet: false };
  }

  state(channel: string, health: ResolvedHealth): ChannelHealthState {
    const entry = this.out.get(channel);
    const failures = (this.windows.get(channel) ?? []).filter((f) => f).length;
    if (entry === undefined) return { state: 'in', dueInMs: 0, failures, window: health.window };
    const probing = entry.probingUntil > this.now();
    return { state: probing ? 'probing' : 'out', dueInMs: probing ? 0 : this.dueInMs(channel), failures, window: health.window };
  }

  /** An attempt's outcome. With Redis it is counted there (fire and forget); here when Redis cannot take it. */
  record(channel: string, health: ResolvedHealth, outcome: Outcome, probe: boolean): void {
    // A channel that is never taken out (errors above its window) has nothing to count: no Redis call either.
    if (health.errors > health.window && !probe) return;
    if (outcome === 'neutral' && !probe) return;
    if (this.sink?.outcome(channel, health, outcome, probe) === true) return;
    this.recordHere(channel, health, outcome, probe);
  }

  /** Counted in this instance's own window: no Redis, or Redis could not take it (down, or too slow to answer). */
  recordHere(channel: string, health: ResolvedHealth, outcome: Outcome, probe: boolean): void {
    const change = this.apply(channel, health, outcome, probe);
    if (change !== null) this.onChange(change);
  }

  /** This instance's own count (no Redis, or Redis out): the same rule as the fleet's script. */
  private apply(channel: string, health: ResolvedHealth, outcome: Outcome, probe: boolean): RotationChange | null {
    const entry = this.out.get(channel);
    if (probe) {
      if (entry === undefined) return null;
      // A probe the channel answered, even with the caller's 4xx: it is reachable and serving.
      if (outcome !== 'failed') return this.change(channel, 'in', 'probe_served', 0, 0);
      return this.change(channel, 'out', 'probe_failed', Math.min(entry.backoffMs * 2, health.probeMaxMs), 0);
    }
    // Answers to requests sent before it was taken out say nothing new.
    if (entry !== undefined || outcome === 'neutral') return null;
    const known = this.windows.get(channel);
    // A success on a window without failures changes no count (what it would push out is a success too): nothing is
    // kept, so the common request allocates nothing here. A window is kept only while it holds a failure.
    if (known === undefined && outcome === 'served') return null;
    const window = known ?? [];
    window.push(outcome === 'failed');
    while (window.length > health.window) window.shift();
    const failures = window.filter((f) => f).length;
    if (failures === 0) this.windows.delete(channel);
    else this.windows.set(channel, window);
    if (failures < health.errors) return null;
    return this.change(channel, 'out', 'errors', health.probeAfterMs, failures);
  }

  /**
   * A change (this instance's, or the fleet's news through Redis): out with `backoffMs` as its back-off, due for a
   * probe in `dueInMs` (its back-off from now, unless said), or back in (0). The time out this instance knows already
   * (the same serial) keeps its probe in flight: hearing of it again must not let a second one go.
   */
  taken(channel: string, backoffMs: number, serial = '0', dueInMs = backoffMs): void {
    this.windows.delete(channel);
    if (backoffMs <= 0) {
      this.out.delete(channel);
      return;
    }
    const known = this.out.get(channel);
    if (known !== undefined && known.serial === serial && serial !== '0') return;
    this.out.set(channel, { until: this.now() + dueInMs, backoffMs, probingUntil: 0, serial });
  }

  /** The serial of the channel's time out this instance knows; null when it is in here. */
  serialOf(channel: string): string | null {
    return this.out.get(channel)?.serial ?? null;
  }

  outChannels(): string[] {
    return [...this.out.keys()];
  }

  /** Channels no longer configured are forgotten (bounded memory). */
  retain(known: (channel: string) => boolean): void {
    for (const name of [...this.windows.keys()]) if (!known(name)) this.windows.delete(name);
    for (const name of [...this.out.keys()]) if (!known(name)) this.out.delete(name);
  }

  private change(channel: string, state: 'out' | 'in', reason: RotationChange['reason'], backoffMs: number, failures: number): RotationChange {
    this.serial += 1;
    // Without Redis each instance counts its own: the wall clock keeps its serials apart across restarts.
    const serial = `${Date.now()}-${this.serial}`;
    this.taken(channel, backoffMs, serial);
    return { channel, state, reason, backoffMs, failures, serial };
  }
}
