import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { knownTimezone, periodBounds, SpendCalendar } from '../../../core/money/spend-period.js';

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

  it('the request path\'s calendar answers as periodBounds does, keeping a period\'s bounds until it ends', () => {
    const calendar = new SpendCalendar();
    for (const timezone of ['UTC', 'Europe/Berlin', 'America/Santiago']) {
      for (const unit of ['day', 'week', 'month'] as const) {
        const period = { unit, timezone };
        for (let t = at('2026-03-27T00:00:00Z'); t < at('2026-04-02T00:00:00Z'); t += 37 * 60_000) {
          assert.deepEqual(calendar.bounds(period, t), periodBounds(period, t), `${timezone} ${unit} ${iso(t)}`);
        }
      }
    }
    const day = { unit: 'day' as const, timezone: 'Europe/Berlin' };
    const first = calendar.bounds(day, at('2026-11-29T10:00:00Z'));
    assert.equal(calendar.bounds(day, at('2026-11-29T22:59:59.999Z')), first, 'kept while the day lasts');
    assert.notEqual(calendar.bounds(day, at('2026-11-29T23:00:00Z')).start, first.start, 'the next day at Berlin midnight');
  });

  it('America/Santiago skips midnight (00:00 -> 01:00): the day starts at the change, and each instant is in its period', () => {
    const tz = 'America/Santiago';
    // 2026-09-06: at 04:00Z the clocks go from 00:00 (-04) to 01:00 (-03); 03:30Z is still 23:30 on the 5th.
    const before = periodBounds({ unit: 'day', timezone: tz }, at('2026-09-06T03:30:00Z'));
    assert.deepEqual([iso(before.start), iso(before.end)], ['2026-09-05T04:00:00.000Z', '2026-09-06T04:00:00.000Z']);
    const after = periodBounds({ unit: 'day', timezone: tz }, at('2026-09-06T04:30:00Z'));
    assert.deepEqual([iso(after.start), iso(after.end)], ['2026-09-06T04:00:00.000Z', '2026-09-07T03:00:00.000Z']);
    // Any instant lies inside the period found for it, across the change.
    for (let t = at('2026-09-05T00:00:00Z'); t < at('2026-09-08T00:00:00Z'); t += 15 * 60_000) {
      const b = periodBounds({ unit: 'day', timezone: tz }, t);
      assert.ok(b.start <= t && t < b.end, `${iso(t)} in [${iso(b.start)}, ${iso(b.end)})`);
    }
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
