// A labelled form control: the label wraps the control (no ids to keep unique), with an optional hint under it.

import type { ComponentChildren } from 'preact';
import { html } from './html.js';

export function Field(props: { readonly label: string; readonly hint?: string; readonly wide?: boolean; readonly children?: ComponentChildren }) {
  return html`
    <label class=${props.wide === true ? 'field wide' : 'field'}>
      <span class="label">${props.label}</span>
      ${props.children}
      ${props.hint === undefined ? null : html`<small class="hint">${props.hint}</small>`}
    </label>
  `;
}
