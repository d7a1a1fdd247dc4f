// Time range presets (last hour ... 30 days) and a custom from/to by date, resolved to the from/to/bucket the API
// takes. Custom dates are UTC days, the "to" day included (the API's `to` is exclusive: the next day's start).

import { DateInput, isDate } from './date-input.js';
import { formatDate, startOfDate } from './format-time.js';
import { html } from './html.js';

export type Preset = '1h' | '24h' | '7d' | '30d' | 'custom';

export interface RangeChoice {
  readonly preset: Preset;
  /** "YYYY-MM-DD", for the custom preset. */
  readonly from: string;
  readonly to: string;
}

export interface TimeRange {
  readonly from: string;
  readonly to: string;
  readonly bucket: 'hour' | 'day';
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const LABELS: Readonly<Record<Preset, string>> = { '1h': 'Last hour', '24h': '24 hours', '7d': '7 days', '30d': '30 days', custom: 'Custom' };

/** A preset, with the custom dates pre-filled with the last 7 days (today included). */
export function initialChoice(preset: Preset, now = Date.now()): RangeChoice {
  return { preset, from: formatDate(new Date(now - 6 * DAY)), to: formatDate(new Date(now)) };
}

/**
 * The choice as API times, `now` read at each load so a preset always means "until now". Presets end on a bucket
 * boundary (the next hour or the next UTC day) so a chart gets exactly 24, 7 or 30 whole buckets. Null while a
 * custom range is incomplete or backwards.
 */
export function resolveRange(choice: RangeChoice, now = Date.now()): TimeRange | null {
  const iso = (ms: number): string => new Date(ms).toISOString();
  const nextHour = Math.ceil(now / HOUR) * HOUR;
  const nextDay = Math.floor(now / DAY) * DAY + DAY;
  switch (choice.preset) {
    case '1h':
      return { from: iso(now - HOUR), to: iso(now), bucket: 'hour' };
    case '24h':
      return { from: iso(nextHour - DAY), to: iso(nextHour), bucket: 'hour' };
    case '7d':
      return { from: iso(nextDay - 7 * DAY), to: iso(nextDay), bucket: 'day' };
    case '30d':
      return { from: iso(nextDay - 30 * DAY), to: iso(nextDay), bucket: 'day' };
    case 'custom': {
      if (!isDate(choice.from) || !isDate(choice.to) || choice.from > choice.to) return null;
      const from = startOfDate(choice.from);
      const to = startOfDate(choice.to, 1);
      // Hourly up to two days: a day or two by day is one or two bars.
      return { from, to, bucket: Date.parse(to) - Date.parse(from) <= 2 * DAY ? 'hour' : 'day' };
    }
  }
}

export interface RangePickerProps {
  readonly value: RangeChoice;
  readonly presets: readonly Preset[];
  readonly onChange: (choice: RangeChoice) => void;
}

/** Buttons data-testid "range-<preset>", and for custom the date inputs "range-from" and "range-to" (YYYY-MM-DD). */
export function RangePicker(props: RangePickerProps) {
  const { value, onChange } = props;
  const dateInput = (which: 'from' | 'to') => html`
    <${DateInput}
      testid=${`range-${which}`}
      label=${which === 'from' ? 'From (UTC, YYYY-MM-DD)' : 'To (UTC, YYYY-MM-DD, included)'}
      value=${value[which]}
      onInput=${(date: string) => onChange({ ...value, [which]: date })}
    />
  `;
  return html`
    <div class="range-picker">
      <div class="segmented" role="group" aria-label="Time range">
        ${props.presets.map(
          (preset) => html`
            <button
              type="button"
              data-testid=${`range-${preset}`}
              aria-pressed=${value.preset === preset ? 'true' : 'false'}
              onClick=${() => onChange({ ...value, preset })}
            >
              ${LABELS[preset]}
            </button>
          `,
        )}
      </div>
      ${value.preset === 'custom'
        ? html`<div class="custom-range">${dateInput('from')}<span>to</span>${dateInput('to')}<small class="hint">UTC</small></div>`
        : null}
    </div>
  `;
}
