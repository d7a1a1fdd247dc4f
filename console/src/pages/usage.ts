// #/usage: the request records, newest first, under filters applied with "Apply"; a totals row for the whole
// filter (not just this page), cursor paging, and a CSV export of the same filter (a plain link: the cookie
// authenticates the GET). A preset's times are fixed when applied, so paging and the CSV see the same range.

import { useState } from 'preact/hooks';
import type { Key, KeyList, UsagePage as UsageAnswer, UsageRow } from '../api-types.js';
import { accountQuery, useApp } from '../app-context.js';
import { apiUrl } from '../api.js';
import { AccountSelect, useAccounts } from '../components/account-select.js';
import { Field } from '../components/field.js';
import { formatCount, formatMoney, formatMs } from '../components/format-number.js';
import { formatTime } from '../components/format-time.js';
import { html } from '../components/html.js';
import { PageFrame } from '../components/page.js';
import { Pager } from '../components/pager.js';
import { RangePicker, initialChoice, resolveRange, type RangeChoice } from '../components/range-picker.js';
import { clickedRowId, RequestDrawer, type DrawerSubject } from '../components/request-drawer.js';
import { Table, type Column } from '../components/table.js';
import { useLoad } from '../components/use-load.js';

const ROUTES = [
  '/v1/chat/completions',
  '/v1/messages',
  '/v1/messages/count_tokens',
  '/v1/responses',
  '/v1/responses/compact',
  '/v1/images/generations',
  '/v1/images/edits',
];

interface Filters {
  readonly range: RangeChoice;
  readonly key_id: string;
  readonly model: string;
  readonly status: '' | 'ok' | 'error';
  readonly route: string;
  readonly request_id: string;
}

/** The filters as the API's query, the range resolved to times. */
type Applied = Record<'from' | 'to' | 'key_id' | 'model' | 'status' | 'route' | 'request_id', string>;

function applied(filters: Filters): Applied | null {
  const range = resolveRange(filters.range);
  if (range === null) return null;
  const { key_id, model, status, route, request_id } = filters;
  return { from: range.from, to: range.to, key_id, model: model.trim(), status, route, request_id: request_id.trim() };
}

const INITIAL: Filters = { range: initialChoice('24h'), key_id: '', model: '', status: '', route: '', request_id: '' };

function columns(withAccount: boolean): Column<UsageRow>[] {
  return [
    { id: 'time', title: 'Time', cell: (r) => html`<span title=${`Request ${r.request_id}`}>${formatTime(r.time)}</span>` },
    ...(withAccount ? [{ id: 'account', title: 'Account', cell: (r: UsageRow) => r.account ?? '—' }] : []),
    { id: 'key', title: 'Key', cell: (r) => r.key_name },
    { id: 'model', title: 'Model', cell: (r) => html`<span title=${r.route}>${r.model}</span>` },
    { id: 'channel', title: 'Channel', cell: (r) => r.channel ?? '—' },
    { id: 'input', title: 'Input', num: true, cell: (r) => formatCount(r.input_tokens) },
    { id: 'cached', title: 'Cached', num: true, cell: (r) => formatCount(r.cached_tokens) },
    { id: 'cache-write', title: 'Cache write', num: true, cell: (r) => formatCount(r.cache_write_tokens) },
    { id: 'output', title: 'Output', num: true, cell: (r) => formatCount(r.output_tokens) },
    { id: 'reasoning', title: 'Reasoning', num: true, cell: (r) => formatCount(r.reasoning_tokens) },
    { id: 'cost', title: 'Cost', num: true, cell: (r) => formatMoney(r.cost) },
    { id: 'latency', title: 'Latency', num: true, cell: (r) => formatMs(r.latency_ms) },
    { id: 'ttft', title: 'TTFT', num: true, cell: (r) => formatMs(r.ttft_ms) },
    { id: 'stream', title: 'Stream', cell: (r) => (r.stream ? 'yes' : 'no') },
    {
      id: 'status',
      title: 'Status',
      cell: (r) => html`<span class=${`badge ${r.status < 400 ? 'status-ok' : 'status-error'}`}>${r.status}</span>${r.error_code === null ? '' : ` ${r.error_code}`}`,
    },
  ];
}

/** The totals row, its cells under the matching columns. */
function TotalsRow(props: { readonly totals: UsageAnswer['totals']; readonly lead: number }) {
  const t = props.totals;
  return html`
    <tr class="totals" data-testid="totals-row">
      <th scope="row" colspan=${props.lead}>Totals for this filter</th>
      <td class="num" data-col="input">${formatCount(t.input_tokens)}</td>
      <td class="num" data-col="cached">${formatCount(t.cached_tokens)}</td>
      <td class="num" data-col="cache-write">${formatCount(t.cache_write_tokens)}</td>
      <td class="num" data-col="output">${formatCount(t.output_tokens)}</td>
      <td class="num" data-col="reasoning">${formatCount(t.reasoning_tokens)}</td>
      <td class="num" data-col="cost">${formatMoney(t.cost)}</td>
      <td colspan="4" data-col="requests">${formatCount(t.requests)} requests, ${formatCount(t.errors)} errors</td>
    </tr>
  `;
}

export function UsagePage() {
  const app = useApp();
  const accounts = useAccounts();
  const withAccount = app.session?.user.operator === true && app.account === '';
  const [draft, setDraft] = useState<Filters>(INITIAL);
  const [query, setQuery] = useState<Applied | null>(() => applied(INITIAL));
  const [cursor, setCursor] = useState<string | null>(null);
  const [drawer, setDrawer] = useState<DrawerSubject | null>(null);
  const keys = useLoad(() => app.api.get<KeyList>('/keys', accountQuery(app)), [app.account]);
  const loaded = useLoad(async () => {
    if (query === null) return undefined;
    return app.api.get<UsageAnswer>('/usage', { ...query, cursor, limit: 50, ...accountQuery(app) });
  }, [query, cursor, app.account]);
  // Another account's cursor and keys mean nothing here: its newest page, of all its keys.
  const onSwitch = (): void => {
    setCursor(null);
    setDraft((d) => ({ ...d, key_id: '' }));
    setQuery((q) => (q === null ? q : { ...q, key_id: '' }));
  };
  const set = (patch: Partial<Filters>): void => setDraft((d) => ({ ...d, ...patch }));
  const value = (e: Event): string => (e.currentTarget as HTMLInputElement).value;

  function onApply(e: Event): void {
    e.preventDefault();
    app.notify.clear();
    const next = applied(draft);
    if (next === null) {
      app.notify.error(new Error('Choose a from and a to date (from before to).'));
      return;
    }
    setCursor(null);
    setQuery(next);
  }

  const page = loaded.data;
  const csv = query === null ? null : apiUrl('/usage.csv', { ...query, ...accountQuery(app) });
  return html`
    <${PageFrame} name="usage" title="Usage" ready=${loaded.ready && keys.ready} loads=${loaded.loads} tools=${html`<${AccountSelect} accounts=${accounts} onSwitch=${onSwitch} />`}>
      <form class="card filters" data-testid="usage-filters" onSubmit=${onApply}>
        <div class="wide"><${RangePicker} value=${draft.range} presets=${['1h', '24h', '7d', '30d', 'custom']} onChange=${(range: RangeChoice) => set({ range })} /></div>
        <${Field} label="Key">
          <select data-testid="filter-key" value=${draft.key_id} onChange=${(e: Event) => set({ key_id: value(e) })}>
            <option value="">All keys</option>
            ${(keys.data?.data ?? []).map((k) => html`<option value=${k.id}>${k.declared ? `${k.name} (gateway.yaml)` : k.name}</option>`)}
          </select>
        <//>
        <${Field} label="Model">
          <input type="text" data-testid="filter-model" value=${draft.model} onInput=${(e: Event) => set({ model: value(e) })} />
        <//>
        <${Field} label="Status">
          <select data-testid="filter-status" value=${draft.status} onChange=${(e: Event) => set({ status: value(e) as Filters['status'] })}>
            <option value="">All</option>
            <option value="ok">OK</option>
            <option value="error">Errors</option>
          </select>
        <//>
        <${Field} label="Route">
          <select data-testid="filter-route" value=${draft.route} onChange=${(e: Event) => set({ route: value(e) })}>
            <option value="">All routes</option>
            ${ROUTES.map((r) => html`<option value=${r}>${r}</option>`)}
          </select>
        <//>
        <${Field} label="Request id">
          <input type="text" data-testid="filter-request-id" value=${draft.request_id} onInput=${(e: Event) => set({ request_id: value(e) })} />
        <//>
        <div class="actions wide">
          <button type="submit" class="primary" data-testid="apply">Apply</button>
          ${csv === null ? null : html`<a class="button" data-testid="export-csv" href=${csv} download="usage.csv">Export CSV</a>`}
        </div>
      </form>
      <div data-testid="usage-rows" onClick=${(e: Event) => {
        // A row's click opens its request's detail.
        const id = clickedRowId(e);
        if (id !== null) setDrawer({ request: id });
      }}>
        <${Table}
          testid="table-usage"
          columns=${columns(withAccount)}
          rows=${page?.data ?? []}
          rowId=${(r: UsageRow) => r.request_id}
          rowClass=${() => 'clickable'}
          before=${page === undefined ? null : html`<${TotalsRow} totals=${page.totals} lead=${withAccount ? 5 : 4} />`}
          empty=${loaded.ready ? 'No requests match this filter.' : 'Loading…'}
        />
      </div>
      <${RequestDrawer} subject=${drawer} onOpen=${setDrawer} onClose=${() => setDrawer(null)} />
      <${Pager} atNewest=${cursor === null} nextCursor=${page?.next_cursor ?? null} onOlder=${setCursor} onNewest=${() => setCursor(null)} />
    <//>
  `;
}
