// Rate limits as the rate-limit plugin asks for them: every limit that applies to a request checked at once, all
// or nothing (a request refused by one limit takes nothing from the others), and its ending reported once, which
// frees its concurrency slots and corrects its tokens to what it used. The state behind it is in this process
// (MemoryLimiter) or shared by every instance (Redis, issue 24).
//
// tokens_per_day is a count per calendar day, not a bucket: what the requests admitted in a day reserved (their
// estimates, corrected to their usage at their end) against the day's cap, exact like max_spend. Which day it is
// comes from the calendar clock the limiter is given (the instances' clocks, so a test can move it past midnight); a
// request's correction goes to the day it was admitted in.

import type { DailyTokens } from '../config/resolved.js';

/** Which kind of limit. */
export type LimitKind = 'rpm' | 'tpm' | 'concurrency' | 'tpd';

/**
 * Whose limits: a key (its own or its group's values), a key on one model of its group, an account's keys together,
 * a key on a route with a limit of its own (rate-limit's `route_rpm`).
 */
export type LimitScope = 'key' | 'model' | 'account' | 'route';

/** The limits of one subject (a key, a key on a model, an account), each optional. */
export interface LimitCheck {
  /** Unique per subject: `key:<id>`, `key:<id>:model:<pattern>`, `account:<name>`, `key:<id>:route:<route>`. */
  readonly subject: string;
  readonly scope: LimitScope;
  /** What messages call it: the key's name, the model pattern, the account's name. */
  readonly label: string;
  readonly rpm?: number | undefined;
  readonly tpm?: number | undefined;
  readonly concurrency?: number | undefined;
  readonly tpd?: DailyTokens | undefined;
}

/** Where one limit stands, for the answer's headers and a refusal's message. */
export interface LimitState {
  readonly kind: LimitKind;
  readonly scope: LimitScope;
  readonly label: string;
  readonly limit: number;
  readonly remaining: number;
  /** Until the limit is whole again, ms (concurrency: 0, a slot frees when a request ends; tpd: the day's end). */
  readonly resetMs: number;
  /** When a calendar limit (tpd) resets, epoch ms: its period's end. */
  readonly resetsAt?: number;
  /** A calendar limit's period (tpd: a day unless it says week or month). */
  readonly period?: 'day' | 'week' | 'month';
}

/** What an admitted request holds until its end. */
export interface Ticket {
  readonly checks: readonly LimitCheck[];
  /** The tokens it was admitted against (its estimate). */
  readonly tokens: number;
  /** The concurrency slots it holds, by subject: released once. */
  readonly slots: readonly string[];
  /** For each of `checks` with a tpd, the start (epoch ms) of the day its tokens were counted in; else null. */
  readonly days: readonly (number | null)[];
}

export type Admission =
  | { readonly admitted: true; readonly ticket: Ticket; readonly states: readonly LimitState[] }
  | {
      readonly admitted: false;
      /** The limit that refused it. */
      readonly refused: LimitState;
      /** Until it could be admitted, ms; Infinity when it never can (more tokens than the limit allows). */
      readonly retryAfterMs: number;
      /** How much the request asked of the refusing limit (1 request, its tokens). */
      readonly requested: number;
      readonly states: readonly LimitState[];
    };

export interface Limiter {
  /** Checks every limit of `checks` for one request of `tokens` estimated tokens; admits it against all or none. */
  admit(checks: readonly LimitCheck[], tokens: number): Admission | Promise<Admission>;
  /** The request ended (whatever way): its slots are freed, its tokens corrected to `usedTokens` when known. */
  finish(ticket: Ticket, usedTokens: number | null): void | Promise<void>;
  /** Requests holding a slot of `subject` now. */
  inFlight(subject: string): number;
  /** Tokens counted against `check`'s tokens_per_day in the current day (0 without one): what /v1/me shows. */
  usedToday(check: LimitCheck): number | Promise<number>;
}
