// A date typed as YYYY-MM-DD (UTC), the way every date on the pages is written: a text input with that pattern,
// never the browser's date picker (which shows the locale's mm/dd/yyyy). The value is what was typed; readers check
// it with isDate.

import { html } from './html.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A real day written YYYY-MM-DD (not 2026-02-30). */
export function isDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const at = new Date(`${text}T00:00:00.000Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(text);
}

export interface DateInputProps {
  readonly testid: string;
  readonly value: string;
  readonly onInput: (value: string) => void;
  readonly label?: string;
}

export function DateInput(props: DateInputProps) {
  return html`
    <input
      type="text"
      class="date-input"
      inputmode="numeric"
      pattern="\\d{4}-\\d{2}-\\d{2}"
      placeholder="YYYY-MM-DD"
      maxlength="10"
      autocomplete="off"
      data-testid=${props.testid}
      aria-label=${props.label}
      value=${props.value}
      onInput=${(e: Event) => props.onInput((e.currentTarget as HTMLInputElement).value.trim())}
    />
  `;
}
