// Calendar periods of a periodic cap (max_spend with a period): a day, an ISO week (Monday first) or a month, in UTC
// or an IANA timezone. Pure: the start and end of the period holding an instant, as epoch ms. A period starts at
// local midnight, or where a zone skips midnight (Santiago's spring change, 00:00 -> 01:00) at the first instant of
// the day; a repeated midnight counts from its first. The period's length follows the calendar (a Berlin day of 23
// or 25 hours). UTC, the default, needs no Intl call at all.

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

/** How a period's bounds read a zone's wall clock: a formatter of it, new each time or kept (SpendCalendar). */
type Formats = (timezone: string) => Intl.DateTimeFormat;

function formatOf(timezone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
}

/** Offset of `timezone` from UTC at instant `at`, in ms (Berlin in summer: +7,200,000). */
function offsetAt(formats: Formats, timezone: string, at: number): number {
  const parts = formats(timezone).formatToParts(new Date(at));
  const field = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? '0');
  const asUtc = Date.UTC(field('year'), field('month') - 1, field('day'), field('hour'), field('minute'), field('second'));
  return asUtc - Math.floor(at / 1000) * 1000;
}

function localDateOf(formats: Formats, timezone: string, at: number): LocalDate {
  const local = new Date(timezone === 'UTC' ? at : at + offsetAt(formats, timezone, at));
  return { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() };
}

const DAY_MS = 86_400_000;

/**
 * The first instant of local day `date` in `timezone` (Date.UTC normalises an overflowing day or month). Midnight at
 * the offset of the day before, or of the day after: the earliest of the two that falls on the day itself. Where
 * midnight exists it is one of them (a change of offset on that day moves only the other); where it is skipped, the
 * one at the earlier offset is the moment of the change, the day's first instant.
 */
function midnight(formats: Formats, timezone: string, year: number, month: number, day: number): number {
  const wall = Date.UTC(year, month - 1, day);
  if (timezone === 'UTC') return wall;
  const target = new Date(wall);
  const onDay = (t: number): boolean => {
    const d = localDateOf(formats, timezone, t);
    return d.year === target.getUTCFullYear() && d.month === target.getUTCMonth() + 1 && d.day === target.getUTCDate();
  };
  const candidates = [wall - offsetAt(formats, timezone, wall - DAY_MS), wall - offsetAt(formats, timezone, wall + DAY_MS)].sort((a, b) => a - b);
  return candidates.find(onDay) ?? (candidates[1] as number);
}

/** The period of `period` that holds instant `at` (a formatter made per call: SpendCalendar keeps them). */
export function periodBounds(period: SpendPeriod, at: number): PeriodBounds {
  return boundsWith(formatOf, period, at);
}

function boundsWith(formats: Formats, period: SpendPeriod, at: number): PeriodBounds {
  const { timezone } = period;
  const m = (year: number, month: number, day: number): number => midnight(formats, timezone, year, month, day);
  const d = localDateOf(formats, timezone, at);
  if (period.unit === 'day') return { start: m(d.year, d.month, d.day), end: m(d.year, d.month, d.day + 1) };
  if (period.unit === 'week') {
    // getUTCDay: 0 is Sunday; weeks start on Monday.
    const weekday = (new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay() + 6) % 7;
    return { start: m(d.year, d.month, d.day - weekday), end: m(d.year, d.month, d.day - weekday + 7) };
  }
  return { start: m(d.year, d.month, 1), end: m(d.year, d.month + 1, 1) };
}

/**
 * Period bounds for the request path: a zone's formatter is made once (making one costs far more than using it), and
 * each period's last bounds are kept while they hold, so a request with a periodic cap pays two comparisons. One per
 * quota plugin of a config load (its periods are that load's objects).
 */
export class SpendCalendar {
  readonly #formats = new Map<string, Intl.DateTimeFormat>();
  readonly #last = new WeakMap<SpendPeriod, PeriodBounds>();
  readonly #formatOf: Formats = (timezone) => {
    let format = this.#formats.get(timezone);
    if (format === undefined) {
      format = formatOf(timezone);
      this.#formats.set(timezone, format);
    }
    return format;
  };

  bounds(period: SpendPeriod, at: number): PeriodBounds {
    const last = this.#last.get(period);
    if (last !== undefined && at >= last.start && at < last.end) return last;
    const next = boundsWith(this.#formatOf, period, at);
    this.#last.set(period, next);
    return next;
  }
}
