// The limits of one process: token buckets for requests and tokens per minute (bucket.ts), counters for requests in
// flight, one small state per subject (a key, a key on a model, an account). No I/O, so an admission is
// synchronous. A state whose buckets are full and that no admitted request still holds is dropped, so the map holds
// only subjects active within the last minute.

import { corrected, take, type Bucket, type BucketResult } from './bucket.js';
import type { Admission, LimitCheck, LimitKind, Limiter, LimitState, Ticket } from './limiter.js';
import { statesOf } from './limit-states.js';

/** Both rate limits are per minute. */
export const LIMIT_PERIOD_MS = 60_000;
/** Idle states are swept out at most this often. */
const SWEEP_MS = 10_000;

export interface MemoryLimiterOptions {
  /** The clock, ms (tests move it instead of sleeping a minute). */
  readonly now?: () => number;
}

interface SubjectState {
  rpm: Bucket | undefined;
  tpm: Bucket | undefined;
  /** Requests holding a concurrency slot. */
  inFlight: number;
  /** Admitted requests not yet finished (their tokens are still to be corrected): the state is kept meanwhile. */
  open: number;
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
    // Each limit is checked against the state before this request; none is changed until all have admitted it.
    const results: { check: LimitCheck; rpm: BucketResult | null; tpm: BucketResult | null; held: number }[] = [];
    for (const check of checks) {
      const subject = this.#subjects.get(check.subject);
      const rpm = check.rpm === undefined ? null : take(subject?.rpm, now, { limit: check.rpm, periodMs: LIMIT_PERIOD_MS }, 1);
      const tpm = check.tpm === undefined ? null : take(subject?.tpm, now, { limit: check.tpm, periodMs: LIMIT_PERIOD_MS }, tokens);
      const held = subject?.inFlight ?? 0;
      results.push({ check, rpm, tpm, held });
      const refusedBy: LimitKind | null =
        rpm !== null && !rpm.admitted ? 'rpm' : tpm !== null && !tpm.admitted ? 'tpm' : check.concurrency !== undefined && held >= check.concurrency ? 'concurrency' : null;
      if (refusedBy === null) continue;
      // Refused: every count as it stands, none less this request.
      const states = results.flatMap((r) => statesOf(r.check, r.rpm, r.tpm, r.held, false));
      const refused = states.find((s) => s.kind === refusedBy && s.label === check.label) as LimitState;
      const retryAfterMs = refusedBy === 'rpm' ? (rpm as BucketResult).retryAfterMs : refusedBy === 'tpm' ? (tpm as BucketResult).retryAfterMs : 1000;
      return { admitted: false, refused, retryAfterMs, requested: refusedBy === 'tpm' ? tokens : 1, states };
    }
    const slots: string[] = [];
    const states: LimitState[] = [];
    for (const { check, rpm, tpm, held } of results) {
      let subject = this.#subjects.get(check.subject);
      if (subject === undefined) {
        subject = { rpm: undefined, tpm: undefined, inFlight: 0, open: 0 };
        this.#subjects.set(check.subject, subject);
      }
      if (rpm !== null) subject.rpm = rpm.bucket;
      if (tpm !== null) subject.tpm = tpm.bucket;
      subject.open++;
      if (check.concurrency !== undefined) {
        subject.inFlight++;
        slots.push(check.subject);
      }
      for (const state of statesOf(check, rpm, tpm, held, true)) states.push(state);
    }
    return { admitted: true, ticket: { checks, tokens, slots }, states };
  }

  finish(ticket: Ticket, usedTokens: number | null): void {
    const now = this.#now();
    for (const check of ticket.checks) {
      const subject = this.#subjects.get(check.subject);
      if (subject === undefined) continue;
      if (subject.open > 0) subject.open--;
      if (check.concurrency !== undefined && subject.inFlight > 0) subject.inFlight--;
      if (check.tpm !== undefined && subject.tpm !== undefined && usedTokens !== null && usedTokens !== ticket.tokens) {
        subject.tpm = corrected(subject.tpm, now, { limit: check.tpm, periodMs: LIMIT_PERIOD_MS }, usedTokens - ticket.tokens);
      }
    }
  }

  inFlight(subject: string): number {
    return this.#subjects.get(subject)?.inFlight ?? 0;
  }

  /** Drops the states with nothing in them: full buckets and no open request read the same as no state. */
  #sweep(now: number): void {
    if (now - this.#sweptAt < SWEEP_MS) return;
    this.#sweptAt = now;
    for (const [name, subject] of this.#subjects) {
      if (subject.open === 0 && isFull(subject.rpm, now) && isFull(subject.tpm, now)) this.#subjects.delete(name);
    }
  }
}

/** Whether a bucket would be full by now (at the slowest refill a limit can have, one point per ms). */
function isFull(bucket: Bucket | undefined, now: number): boolean {
  return bucket === undefined || (bucket.level >= 0 && now - bucket.at >= LIMIT_PERIOD_MS);
}
