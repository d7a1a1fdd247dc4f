// The operator's form for a new batch: what each code credits, how many, until when, and a note. Its idempotency key
// is made when the form opens and kept until the batch is made, so a double click or a retry makes one batch.

import { useState } from 'preact/hooks';
import { Field } from '../../../console/src/components/field.js';
import { html } from '../../../console/src/components/html.js';

export interface BatchDraft {
  readonly amount: string;
  readonly count: number;
  /** A date (yyyy-mm-dd, midnight UTC) or ''. */
  readonly expires: string;
  readonly note: string;
}

const value = (e: Event): string => (e.currentTarget as HTMLInputElement).value;

export function BatchForm(props: { readonly busy: boolean; readonly onSubmit: (draft: BatchDraft) => void; readonly onCancel: () => void }) {
  const [amount, setAmount] = useState('');
  const [count, setCount] = useState('10');
  const [expires, setExpires] = useState('');
  const [note, setNote] = useState('');
  const submit = (e: Event): void => {
    e.preventDefault();
    props.onSubmit({ amount: amount.trim(), count: Number(count), expires, note: note.trim() });
  };
  return html`
    <form class="card form-grid" data-testid="batch-form" onSubmit=${submit}>
      <h2 class="wide">New batch of codes</h2>
      <${Field} label="Amount of each code" hint="A decimal, such as 10.50">
        <input type="text" inputmode="decimal" data-testid="batch-amount" required value=${amount} onInput=${(e: Event) => setAmount(value(e))} />
      <//>
      <${Field} label="How many" hint="1 to 1000">
        <input type="number" min="1" max="1000" step="1" data-testid="batch-count" required value=${count} onInput=${(e: Event) => setCount(value(e))} />
      <//>
      <${Field} label="Expires" hint="Refused from this day on (UTC); empty: never">
        <input type="date" data-testid="batch-expires" value=${expires} onInput=${(e: Event) => setExpires(value(e))} />
      <//>
      <${Field} label="Note"><input type="text" data-testid="batch-note" value=${note} onInput=${(e: Event) => setNote(value(e))} /><//>
      <div class="actions wide">
        <button type="submit" class="primary" data-testid="batch-submit" disabled=${props.busy}>Make codes</button>
        <button type="button" data-testid="batch-cancel" onClick=${props.onCancel}>Cancel</button>
      </div>
    </form>
  `;
}
