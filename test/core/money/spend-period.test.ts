import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { knownTimezone, periodBounds } from '../../../core/money/spend-period.js';

const iso = (ms: number): string => new Date(ms).toISOString();
const at = (s: string): number => Date.parse(s);

describe('spend periods', () => {
  it('a UTC day, week (Monday first) and month', () => {
    const b = periodBounds({ unit: 'day', timezone: 'UTC' }, at('2026-11-29T13:05:00Z'));
    assert.deepEqual([iso(b.start), iso(b.end)], ['2026-11-29T00:00:00.000Z', '2026-11-30T00:00:00.000Z']);
    // 2026-11-29 is a Sunday: its week began Monday the 23rd.
    const w = periodBounds({ unit: 'week', timezone: 'UTC' }, at('2026-11-29T23:59:59Z'));
    assert.deepEqual([iso(w.start), iso(w.end)], ['2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z']);
    const m = periodBounds({ unit: 'week', timezone: 'UTC' }, at('2026-11-30T00:00:00Z'));
    assert.equal(iso(m.start), '2026-11-30T00:00:00.000Z');
  });

  it('month ends: December to January, February of a leap year, the last millisecond', () => {
    const dec = periodBounds({ unit: 'month', timezone: 'UTC' }, at('2026-12-31T23:59:59.999Z'));
    assert.deepEqual([iso(dec.start), iso(dec.end)], ['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
    const feb = periodBounds({ unit: 'month', timezone: 'UTC' }, at('2028-02-29T12:00:00Z'));
    assert.deepEqual([iso(feb.start), iso(feb.end)], ['2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z']);
    const next = periodBounds({ unit: 'month', timezone: 'UTC' }, at('2027-01-01T00:00:00Z'));
    assert.equal(iso(next.start), '2027-01-01T00:00:00.000Z');
  });

  it('Europe/Berlin: local midnight, and the days of a DST change last 23 and 25 hours', () => {
    const tz = 'Europe/Berlin';
    // 2026-03-29: clocks go from 02:00 CET to 03:00 CEST.
    const spring = periodBounds({ unit: 'day', timezone: tz }, at('2026-03-29T12:00:00Z'));
    assert.deepEqual([iso(spring.start), iso(spring.end)], ['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    assert.equal(spring.end - spring.start, 23 * 3600_000);
    // 2026-10-25: back from 03:00 CEST to 02:00 CET.
    const autumn = periodBounds({ unit: 'day', timezone: tz }, at('2026-10-25T01:30:00Z'));
    assert.deepEqual([iso(autumn.start), iso(autumn.end)], ['2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z']);
    assert.equal(autumn.end - autumn.start, 25 * 3600_000);
    // 23:30 UTC on the 29th of November is already the 30th (a Monday) in Berlin.
    const day = periodBounds({ unit: 'day', timezone: tz }, at('2026-11-29T23:30:00Z'));
    assert.equal(iso(day.start), '2026-11-29T23:00:00.000Z');
    const week = periodBounds({ unit: 'week', timezone: tz }, at('2026-11-29T23:30:00Z'));
    assert.deepEqual([iso(week.start), iso(week.end)], ['2026-11-29T23:00:00.000Z', '2026-12-06T23:00:00.000Z']);
    // The week and month holding the spring change: they start in CET and end in CEST.
    const march = periodBounds({ unit: 'month', timezone: tz }, at('2026-03-31T21:59:59Z'));
    assert.deepEqual([iso(march.start), iso(march.end)], ['2026-02-28T23:00:00.000Z', '2026-03-31T22:00:00.000Z']);
    const april = periodBounds({ unit: 'month', timezone: tz }, at('2026-03-31T22:00:00Z'));
    assert.equal(iso(april.start), '2026-03-31T22:00:00.000Z');
  });

  it('knows zone names', () => {
    assert.equal(knownTimezone('Europe/Berlin'), true);
    assert.equal(knownTimezone('Mars/Olympus'), false);
  });
});
