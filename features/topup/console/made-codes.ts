// The codes of a batch just made, with their secrets: shown this once (the server keeps only their digests), to copy
// or to save as a CSV made here in the page from this answer.

import { useEffect, useState } from 'preact/hooks';
import type { ConsoleTopupBatchMade as BatchMade } from '../../../console/src/api-types.gen.js';
import { CopyBox } from '../../../console/src/components/copy-box.js';
import { formatMoney } from '../../../console/src/components/format-number.js';
import { html } from '../../../console/src/components/html.js';

function csvOf(made: BatchMade): string {
  const { batch } = made;
  const lines = made.codes.map((c) => [c.id, batch.id, c.code, batch.amount, batch.currency, batch.expires_at ?? ''].join(','));
  return ['id,batch,code,amount,currency,expires_at', ...lines].join('\r\n') + '\r\n';
}

export function MadeCodes(props: { readonly made: BatchMade; readonly onDone: () => void }) {
  const { made } = props;
  const [href, setHref] = useState('');
  // An object URL for the download, let go when the panel closes.
  useEffect(() => {
    const url = URL.createObjectURL(new Blob([csvOf(made)], { type: 'text/csv' }));
    setHref(url);
    return () => URL.revokeObjectURL(url);
  }, [made]);
  return html`
    <div class="card" data-testid="made-codes">
      <h2>${made.codes.length} codes of ${formatMoney(made.batch.amount, made.batch.currency)}</h2>
      <p><strong>Save them now:</strong> this is the only time their secrets are shown. Afterwards the list shows them masked.</p>
      <${CopyBox} testid="made-codes-all" text=${made.codes.map((c) => c.code).join('\n')} />
      <div class="actions">
        <a class="button" data-testid="made-codes-csv" href=${href} download=${`topup-codes-${made.batch.id}.csv`}>Download CSV</a>
        <button type="button" data-testid="made-codes-done" onClick=${props.onDone}>Done</button>
      </div>
    </div>
  `;
}
