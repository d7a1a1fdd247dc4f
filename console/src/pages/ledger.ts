// #/ledger: the account's money in and out (credits, charges, refunds, adjustments), newest first, paged by cursor.
// An operator's ledger is always one account's (the API needs ?account=), so the selector has no "All" here.

import { useState } from 'preact/hooks';
import type { LedgerEntry, LedgerPage as LedgerAnswer } from '../api-types.js';
import { accountQuery, useApp } from '../app-context.js';
import { AccountSelect, useAccounts } from '../components/account-select.js';
import { formatMoney } from '../components/format-number.js';
import { formatTime } from '../components/format-time.js';
import { html } from '../components/html.js';
import { PageFrame } from '../components/page.js';
import { Pager } from '../components/pager.js';
import { RequestDrawer, type DrawerSubject } from '../components/request-drawer.js';
import { Table, type Column } from '../components/table.js';
import { useLoad } from '../components/use-load.js';

function columns(currency: string | undefined, open: (subject: DrawerSubject) => void): Column<LedgerEntry>[] {
  return [
    { id: 'time', title: 'Time', cell: (e) => formatTime(e.created_at) },
    { id: 'kind', title: 'Kind', cell: (e) => html`<span class=${`badge kind-${e.kind}`}>${e.kind}</span>` },
    { id: 'amount', title: 'Amount', num: true, cell: (e) => formatMoney(e.amount, currency) },
    { id: 'note', title: 'Note', cell: (e) => e.note ?? '' },
    { id: 'request', title: 'Requests', cell: (e) => requestCell(e, open) },
  ];
}

/** A charge's requests: its one request's detail, or the list of those it covers. */
function requestCell(e: LedgerEntry, open: (subject: DrawerSubject) => void) {
  if (e.kind !== 'charge' || e.request_id === null) return '';
  const requestId = e.request_id;
  if (e.note === '1 request') {
    return html`<button type="button" class="link" data-testid="open-request" onClick=${() => open({ request: requestId })}><code>${requestId}</code></button>`;
  }
  return html`<button type="button" class="link" data-testid="open-charge" onClick=${() => open({ charge: e.id })}>${e.note ?? 'Requests'}</button>`;
}

export function LedgerPage() {
  const app = useApp();
  const accounts = useAccounts();
  const needsAccount = app.session?.user.operator === true && app.account === '';
  const [cursor, setCursor] = useState<string | null>(null);
  const [drawer, setDrawer] = useState<DrawerSubject | null>(null);
  const loaded = useLoad(async () => {
    if (needsAccount) return undefined;
    return app.api.get<LedgerAnswer>('/ledger', { cursor, limit: 50, ...accountQuery(app) });
  }, [cursor, app.account]);
  const page = loaded.data;

  return html`
    <${PageFrame} name="ledger" title="Ledger" ready=${loaded.ready} loads=${loaded.loads} tools=${html`<${AccountSelect} accounts=${accounts} required=${true} onSwitch=${() => setCursor(null)} />`}>
      ${needsAccount
        ? html`<p class="muted" data-testid="choose-account">Choose an account to see its ledger.</p>`
        : html`
            <${Table}
              testid="table-ledger"
              columns=${columns(page?.currency, setDrawer)}
              rows=${page?.data ?? []}
              rowId=${(e: LedgerEntry) => String(e.id)}
              rowClass=${(e: LedgerEntry) => `kind-${e.kind}`}
              empty=${loaded.ready ? 'Nothing in the ledger yet.' : 'Loading…'}
            />
            <${Pager} atNewest=${cursor === null} nextCursor=${page?.next_cursor ?? null} onOlder=${setCursor} onNewest=${() => setCursor(null)} />
            <${RequestDrawer} subject=${drawer} onOpen=${setDrawer} onClose=${() => setDrawer(null)} />
          `}
    <//>
  `;
}
