// The dashboard charts' "Split by" choice: none (the range's totals), or one series per model or per key. Buttons
// data-testid "split-<choice>", the chosen one aria-pressed.

import { html } from './html.js';

export type SplitBy = 'none' | 'model' | 'key';

const CHOICES: readonly { readonly value: SplitBy; readonly label: string }[] = [
  { value: 'none', label: 'None' },
  { value: 'model', label: 'Model' },
  { value: 'key', label: 'Key' },
];

export function SplitPicker(props: { readonly value: SplitBy; readonly onChange: (value: SplitBy) => void }) {
  return html`
    <div class="split-picker">
      <span class="label" aria-hidden="true">Split by</span>
      <div class="segmented" role="group" aria-label="Split by">
        ${CHOICES.map(
          (c) => html`
            <button type="button" data-testid=${`split-${c.value}`} aria-pressed=${props.value === c.value ? 'true' : 'false'} onClick=${() => props.onChange(c.value)}>
              ${c.label}
            </button>
          `,
        )}
      </div>
    </div>
  `;
}
