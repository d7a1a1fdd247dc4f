// Calendar periods of a periodic cap (max_spend with a period): a day, an ISO week (Monday first) or a month, in UTC
// or an IANA timezone. Pure: the start and end of the period holding an instant, as epoch ms. A period starts at
// local midnight, which no timezone skips or repeats at a DST change (those happen at night, past midnight in
// every zone this is used with); the period's length follows the calendar (a Berlin day of 23 or 25 hours).

import type { SpendPeriod } from '../config/resolved.js';

export type { SpendPeriod };

export interface PeriodBounds {
  /** Epoch ms of the period's first instant. */
  readonly start: number;
  /** Epoch ms of the next period's start (when the cap resets). */
  readonly end: number;
}

interface LocalDate {
  readonly year: number;
  /** 1-12 */
  readonly month: number;
  readonly day: number;
}

/** Whether `timezone` names a zone this runtime knows (a config check). */
export function knownTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** Offset of `timezone` from UTC at instant `at`, in ms (Berlin in summer: +7,200,000). */
function offsetAt(timezone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(at));
  const field = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? '0');
  const asUtc = Date.UTC(field('year'), field('month') - 1, field('day'), field('hour'), field('minute'), field('second'));
  return asUtc - Math.floor(at / 1000) * 1000;
}

function localDateOf(timezone: string, at: number): LocalDate {
  const local = new Date(at + offsetAt(timezone, at));
  return { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() };
}

/** The instant of local midnight starting `date` in `timezone` (Date.UTC normalises an overflowing day or month). */
function midnight(timezone: string, year: number, month: number, day: number): number {
  const wall = Date.UTC(year, month - 1, day);
  // The offset at the guess, then at the corrected instant: right on either side of a DST change.
  const first = wall - offsetAt(timezone, wall);
  return wall - offsetAt(timezone, first);
}

/** The period of `period` that holds instant `at`. */
export function periodBounds(period: SpendPeriod, at: number): PeriodBounds {
  const { timezone } = period;
  const d = localDateOf(timezone, at);
  if (period.unit === 'day') return { start: midnight(timezone, d.year, d.month, d.day), end: midnight(timezone, d.year, d.month, d.day + 1) };
  if (period.unit === 'week') {
    // getUTCDay: 0 is Sunday; weeks start on Monday.
    const weekday = (new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay() + 6) % 7;
    return { start: midnight(timezone, d.year, d.month, d.day - weekday), end: midnight(timezone, d.year, d.month, d.day - weekday + 7) };
  }
  return { start: midnight(timezone, d.year, d.month, 1), end: midnight(timezone, d.year, d.month + 1, 1) };
}
