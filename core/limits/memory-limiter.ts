// The limits of one process: GCRA buckets for requests and tokens per minute, counters for requests in flight, one
// small state per subject (a key, a key on a model, an account). No I/O, so an admission is synchronous. A state
// whose buckets have refilled and that holds no request is dropped, so the map holds only subjects active within
// the last minute.

import { corrected, gcra, type GcraResult } from './gcra.js';
import type { Admission, LimitCheck, LimitKind, Limiter, LimitState, Ticket } from './limiter.js';

/** Both rate limits are per minute. */
export const LIMIT_PERIOD_MS = 60_000;
/** Idle states are swept out at most this often. */
const SWEEP_MS = 10_000;

export interface MemoryLimiterOptions {
  /** The clock, ms (tests move it instead of sleeping a minute). */
  readonly now?: () => number;
}

interface SubjectState {
  /** The buckets' theoretical arrival times (0: full). */
  rpmTat: number;
  tpmTat: number;
  inFlight: number;
}

export class MemoryLimiter implements Limiter {
  readonly #subjects = new Map<string, SubjectState>();
  readonly #now: () => number;
  #sweptAt = 0;

  constructor(options: MemoryLimiterOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  admit(checks: readonly LimitCheck[], tokens: number): Admission {
    const now = this.#now();
    this.#sweep(now);
    const states: LimitState[] = [];
    // Each limit is checked against the state before this request; none is changed until all have admitted it.
    const rpmTats: number[] = [];
    const tpmTats: number[] = [];
    for (const check of checks) {
      const subject = this.#subjects.get(check.subject);
      let rpm: GcraResult | null = null;
      if (check.rpm !== undefined) {
        rpm = gcra(subject?.rpmTat ?? 0, now, { limit: check.rpm, periodMs: LIMIT_PERIOD_MS }, 1);
        const state = stateOf('rpm', check, check.rpm, rpm.remaining, rpm.resetMs);
        states.push(state);
        if (!rpm.admitted) return { admitted: false, refused: state, retryAfterMs: rpm.retryAfterMs, requested: 1, states };
      }
      let tpm: GcraResult | null = null;
      if (check.tpm !== undefined) {
        tpm = gcra(subject?.tpmTat ?? 0, now, { limit: check.tpm, periodMs: LIMIT_PERIOD_MS }, tokens);
        const state = stateOf('tpm', check, check.tpm, tpm.remaining, tpm.resetMs);
        states.push(state);
        if (!tpm.admitted) return { admitted: false, refused: state, retryAfterMs: tpm.retryAfterMs, requested: tokens, states };
      }
      if (check.concurrency !== undefined) {
        const held = subject?.inFlight ?? 0;
        const state = stateOf('concurrency', check, check.concurrency, Math.max(0, check.concurrency - held - 1), 0);
        states.push(state);
        // A slot frees when a request ends, which no clock can say: retry soon.
        if (held >= check.concurrency) return { admitted: false, refused: state, retryAfterMs: 1000, requested: 1, states };
      }
      rpmTats.push(rpm === null ? (subject?.rpmTat ?? 0) : rpm.tat);
      tpmTats.push(tpm === null ? (subject?.tpmTat ?? 0) : tpm.tat);
    }
    const slots: string[] = [];
    for (let i = 0; i < checks.length; i++) {
      const check = checks[i] as LimitCheck;
      let subject = this.#subjects.get(check.subject);
      if (subject === undefined) {
        subject = { rpmTat: 0, tpmTat: 0, inFlight: 0 };
        this.#subjects.set(check.subject, subject);
      }
      subject.rpmTat = rpmTats[i] as number;
      subject.tpmTat = tpmTats[i] as number;
      if (check.concurrency !== undefined) {
        subject.inFlight++;
        slots.push(check.subject);
      }
    }
    return { admitted: true, ticket: { checks, tokens, slots }, states };
  }

  finish(ticket: Ticket, usedTokens: number | null): void {
    for (const name of ticket.slots) {
      const subject = this.#subjects.get(name);
      if (subject !== undefined && subject.inFlight > 0) subject.inFlight--;
    }
    if (usedTokens === null || usedTokens === ticket.tokens) return;
    const now = this.#now();
    for (const check of ticket.checks) {
      if (check.tpm === undefined) continue;
      const subject = this.#subjects.get(check.subject);
      if (subject !== undefined) subject.tpmTat = corrected(subject.tpmTat, now, { limit: check.tpm, periodMs: LIMIT_PERIOD_MS }, usedTokens - ticket.tokens);
    }
  }

  inFlight(subject: string): number {
    return this.#subjects.get(subject)?.inFlight ?? 0;
  }

  /** Drops the states with nothing in them: full buckets and no request in flight read the same as no state. */
  #sweep(now: number): void {
    if (now - this.#sweptAt < SWEEP_MS) return;
    this.#sweptAt = now;
    for (const [name, subject] of this.#subjects) if (subject.rpmTat <= now && subject.tpmTat <= now && subject.inFlight === 0) this.#subjects.delete(name);
  }
}

function stateOf(kind: LimitKind, check: LimitCheck, limit: number, remaining: number, resetMs: number): LimitState {
  return { kind, scope: check.scope, label: check.label, limit, remaining, resetMs };
}
