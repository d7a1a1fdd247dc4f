// The limits of one process: token buckets for requests and tokens per minute (bucket.ts), counters for requests in
// flight, one small state per subject (a key, a key on a model, an account). No I/O, so an admission is
// synchronous. A state whose buckets are full and that no admitted request still holds is dropped, so the map holds
// only subjects active within the last minute, or with tokens counted in a day not yet over.

import { corrected, take, type Bucket, type BucketResult } from './bucket.js';
import type { Admission, LimitCheck, LimitKind, Limiter, LimitState, Ticket } from './limiter.js';
import { dailyState, statesOf } from './limit-states.js';
import { SpendCalendar } from '../money/spend-period.js';

/** Both rate limits are per minute. */
export const LIMIT_PERIOD_MS = 60_000;
/** Idle states are swept out at most this often. */
const SWEEP_MS = 10_000;

export interface MemoryLimiterOptions {
  /** The clock, ms (tests move it instead of sleeping a minute). */
  readonly now?: () => number;
  /** The calendar clock, epoch ms: which day tokens_per_day counts in; `now` without one. */
  readonly calendar?: () => number;
}

/** The tokens a subject's requests counted in one day. */
interface DayCount {
  readonly start: number;
  readonly end: number;
  used: number;
}

interface SubjectState {
  rpm: Bucket | undefined;
  tpm: Bucket | undefined;
  /** Requests holding a concurrency slot. */
  inFlight: number;
  /** Admitted requests not yet finished (their tokens are still to be corrected): the state is kept meanwhile. */
  open: number;
  /** tokens_per_day's count, of the day it was last counted in. */
  day: DayCount | undefined;
}

/** What one check found. */
interface Found {
  readonly check: LimitCheck;
  readonly rpm: BucketResult | null;
  readonly tpm: BucketResult | null;
  readonly held: number;
  /** The day's bounds and its tokens counted before this request, when the check has a tpd. */
  readonly day: { readonly start: number; readonly end: number; readonly used: number } | null;
}

export class MemoryLimiter implements Limiter {
  readonly #subjects = new Map<string, SubjectState>();
  readonly #now: () => number;
  readonly #calendar: () => number;
  readonly #days = new SpendCalendar();
  #sweptAt = 0;

  constructor(options: MemoryLimiterOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#calendar = options.calendar ?? this.#now;
  }

  admit(checks: readonly LimitCheck[], tokens: number): Admission {
    const now = this.#now();
    const today = this.#calendar();
    this.#sweep(now, today);
    // Each limit is checked against the state before this request; none is changed until all have admitted it.
    const results: Found[] = [];
    for (const check of checks) {
      const subject = this.#subjects.get(check.subject);
      const rpm = check.rpm === undefined ? null : take(subject?.rpm, now, { limit: check.rpm, periodMs: LIMIT_PERIOD_MS }, 1);
      const tpm = check.tpm === undefined ? null : take(subject?.tpm, now, { limit: check.tpm, periodMs: LIMIT_PERIOD_MS }, tokens);
      const held = subject?.inFlight ?? 0;
      let day: Found['day'] = null;
      if (check.tpd !== undefined) {
        const { start, end } = this.#days.bounds(check.tpd.period, today);
        day = { start, end, used: subject?.day?.start === start ? subject.day.used : 0 };
      }
      results.push({ check, rpm, tpm, held, day });
      const refusedBy: LimitKind | null =
        rpm !== null && !rpm.admitted
          ? 'rpm'
          : tpm !== null && !tpm.admitted
            ? 'tpm'
            : check.concurrency !== undefined && held >= check.concurrency
              ? 'concurrency'
              : day !== null && day.used + tokens > (check.tpd as NonNullable<LimitCheck['tpd']>).tokens
                ? 'tpd'
                : null;
      if (refusedBy === null) continue;
      // Refused: every count as it stands, none less this request.
      const states = results.flatMap((r) => statesOfFound(r, today, false));
      const refused = states.find((s) => s.kind === refusedBy && s.label === check.label) as LimitState;
      const retryAfterMs =
        refusedBy === 'rpm' ? (rpm as BucketResult).retryAfterMs : refusedBy === 'tpm' ? (tpm as BucketResult).retryAfterMs : refusedBy === 'tpd' ? dailyRetryMs(check, tokens, refused) : 1000;
      return { admitted: false, refused, retryAfterMs, requested: refusedBy === 'tpm' || refusedBy === 'tpd' ? tokens : 1, states };
    }
    const slots: string[] = [];
    const states: LimitState[] = [];
    const days: (number | null)[] = [];
    for (const found of results) {
      const { check, rpm, tpm, day } = found;
      let subject = this.#subjects.get(check.subject);
      if (subject === undefined) {
        subject = { rpm: undefined, tpm: undefined, inFlight: 0, open: 0, day: undefined };
        this.#subjects.set(check.subject, subject);
      }
      if (rpm !== null) subject.rpm = rpm.bucket;
      if (tpm !== null) subject.tpm = tpm.bucket;
      if (day !== null) subject.day = { start: day.start, end: day.end, used: day.used + tokens };
      days.push(day === null ? null : day.start);
      subject.open++;
      if (check.concurrency !== undefined) {
        subject.inFlight++;
        slots.push(check.subject);
      }
      for (const state of statesOfFound(found, today, true, tokens)) states.push(state);
    }
    return { admitted: true, ticket: { checks, tokens, slots, days }, states };
  }

  finish(ticket: Ticket, usedTokens: number | null): void {
    const now = this.#now();
    ticket.checks.forEach((check, i) => {
      const subject = this.#subjects.get(check.subject);
      if (subject === undefined) return;
      if (subject.open > 0) subject.open--;
      if (check.concurrency !== undefined && subject.inFlight > 0) subject.inFlight--;
      if (usedTokens === null || usedTokens === ticket.tokens) return;
      if (check.tpm !== undefined && subject.tpm !== undefined) {
        subject.tpm = corrected(subject.tpm, now, { limit: check.tpm, periodMs: LIMIT_PERIOD_MS }, usedTokens - ticket.tokens);
      }
      // Corrected in the day it was counted in; a day that is over stays as it ended.
      const day = ticket.days[i];
      if (day !== null && day !== undefined && subject.day?.start === day) subject.day.used = Math.max(0, subject.day.used + usedTokens - ticket.tokens);
    });
  }

  /** Tokens counted today against `check`'s tokens_per_day (0 when it has none, or none were). */
  usedToday(check: LimitCheck): number {
    if (check.tpd === undefined) return 0;
    const day = this.#subjects.get(check.subject)?.day;
    return day !== undefined && day.start === this.#days.bounds(check.tpd.period, this.#calendar()).start ? day.used : 0;
  }

  inFlight(subject: string): number {
    return this.#subjects.get(subject)?.inFlight ?? 0;
  }

  /** Drops the states with nothing in them: full buckets, no open request and no day still running read as no state. */
  #sweep(now: number, today: number): void {
    if (now - this.#sweptAt < SWEEP_MS) return;
    this.#sweptAt = now;
    for (const [name, subject] of this.#subjects) {
      if (subject.open === 0 && isFull(subject.rpm, now) && isFull(subject.tpm, now) && (subject.day === undefined || subject.day.end <= today)) this.#subjects.delete(name);
    }
  }
}

/** Whether a bucket would be full by now (at the slowest refill a limit can have, one point per ms). */
function isFull(bucket: Bucket | undefined, now: number): boolean {
  return bucket === undefined || (bucket.level >= 0 && now - bucket.at >= LIMIT_PERIOD_MS);
}

/** The states of one check, its day's among them. */
function statesOfFound(found: Found, today: number, admitted: boolean, tokens = 0): LimitState[] {
  const states = statesOf(found.check, found.rpm, found.tpm, found.held, admitted);
  const { day, check } = found;
  if (day !== null && check.tpd !== undefined) states.push(dailyState(check, check.tpd.tokens, day.used + (admitted ? tokens : 0), day.end, today));
  return states;
}

/** Until a request refused by its day could be admitted: the day's end; never, when it asks more than a whole day. */
function dailyRetryMs(check: LimitCheck, tokens: number, refused: LimitState): number {
  return tokens > (check.tpd?.tokens ?? 0) ? Number.POSITIVE_INFINITY : refused.resetMs;
}
