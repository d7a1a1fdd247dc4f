// #/usage: the request records, newest first, under filters applied with "Apply"; a totals row for the whole
// filter (not just this page), cursor paging, and a CSV export of the same filter (a plain link: the cookie
// authenticates the GET). A preset's times are fixed when applied, so paging and the CSV see the same range. The model
// filter is a prefix of the name; the status filter is OK, errors, or one HTTP status. What tells a request apart and
// how it ended comes first (time, status and error code, model); the rest is the user's to show.

import { useState } from 'preact/hooks';
import type { Key, KeyList, UsagePage as UsageAnswer, UsageRow } from '../api-types.js';
import { accountQuery, useApp } from '../app-context.js';
import { apiUrl } from '../api.js';
import { AccountSelect, useAccounts } from '../components/account-select.js';
import { Field } from '../components/field.js';
import { formatCount, formatMs } from '../components/format-number.js';
import { formatTime } from '../components/format-time.js';
import { html } from '../components/html.js';
import { useMoney } from '../components/money.js';
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
  /** One HTTP status ("429"): when given, it is the status filter. */
  readonly code: string;
  readonly route: string;
  readonly request_id: string;
}

/** The filters as the API's query, the range resolved to times. */
type Applied = Record<'from' | 'to' | 'key_id' | 'model' | 'status' | 'route' | 'request_id', string>;

function applied(filters: Filters): Applied | null {
  const range = resolveRange(filters.range);
  if (range === null) return null;
  const { key_id, model, status, route, request_id } = filters;
  const code = filters.code.trim();
  return { from: range.from, to: range.to, key_id, model: model.trim(), status: code === '' ? status : code, route, request_id: request_id.trim() };
}

const INITIAL: Filters = { range: initialChoice('24h'), key_id: '', model: '', status: '', code: '', route: '', request_id: '' };

function columns(withAccount: boolean, money: (amount: string | null) => string): Column<UsageRow>[] {
  return [
    { id: 'time', title: 'Time', cell: (r) => html`<span title=${`Request ${r.request_id}`}>${formatTime(r.time)}</span>` },
    {
      id: 'status',
      title: 'Status',
      cell: (r) => html`<span class=${`badge ${r.status < 400 ? 'status-ok' : 'status-error'}`}>${r.status}</span>${r.error_code === null ? '' : html` <code class="error-code">${r.error_code}</code>`}`,
    },
    { id: 'model', title: 'Model', cell: (r) => html`<span title=${r.route}>${r.model}</span>` },
    ...(withAccount ? [{ id: 'account', title: 'Account', cell: (r: UsageRow) => r.account ?? '—' }] : []),
    { id: 'key', title: 'Key', choosable: 'shown', cell: (r) => r.key_name },
    { id: 'cost', title: 'Cost', num: true, choosable: 'shown', cell: (r) => money(r.cost) },
    { id: 'input', title: 'Input', num: true, choosable: 'shown', cell: (r) => formatCount(r.input_tokens) },
    { id: 'output', title: 'Output', num: true, choosable: 'shown', cell: (r) => formatCount(r.output_tokens) },
    { id: 'latency', title: 'Latency', num: true, choosable: 'shown', cell: (r) => formatMs(r.latency_ms) },
    { id: 'channel', title: 'Channel', choosable: 'shown', cell: (r) => r.channel ?? '—' },
    { id: 'cached', title: 'Cached', num: true, choosable: 'hidden', cell: (r) => formatCount(r.cached_tokens) },
    { id: 'cache-write', title: 'Cache write', num: true, choosable: 'hidden', cell: (r) => formatCount(r.cache_write_tokens) },
    { id: 'reasoning', title: 'Reasoning', num: true, choosable: 'hidden', cell: (r) => formatCount(r.reasoning_tokens) },
    { id: 'ttft', title: 'TTFT', num: true, choosable: 'hidden', cell: (r) => formatMs(r.ttft_ms) },
    { id: 'stream', title: 'Stream', choosable: 'hidden', cell: (r) => (r.stream ? 'yes' : 'no') },
  ];
}

/** The totals row, each sum under its column when that column is shown (the requests under Status). */
function TotalsRow(props: { readonly totals: UsageAnswer['totals']; readonly shown: readonly Column<UsageRow>[]; readonly money: (amount: string) => string }) {
  const t = props.totals;
  const sums: Readonly<Record<string, string>> = {
    input: formatCount(t.input_tokens),
    cached: formatCount(t.cached_tokens),
    'cache-write': formatCount(t.cache_write_tokens),
    output: formatCount(t.output_tokens),
    reasoning: formatCount(t.reasoning_tokens),
    cost: props.money(t.cost),
  };
  return html`
    <tr class="totals" data-testid="totals-row">
      ${props.shown.map((c, i) => {
        if (i === 0) return html`<th scope="row" data-title="">Totals for this filter</th>`;
        if (c.id === 'status') return html`<td data-col="requests" data-title="Requests">${formatCount(t.requests)} requests, ${formatCount(t.errors)} errors</td>`;
        const sum = sums[c.id];
        return sum === undefined ? html`<td class="no-total"></td>` : html`<td class="num" data-col=${c.id} data-title=${c.title}>${sum}</td>`;
      })}
    </tr>
  `;
}

export function UsagePage() {
  const app = useApp();
  const accounts = useAccounts();
  const money = useMoney();
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
    if (draft.code.trim() !== '' && !/^[1-5][0-9]{2}$/.test(draft.code.trim())) {
      app.notify.error(new Error('A status code is three digits, such as 429.'));
      return;
    }
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
        <${Field} label="Model" hint="The start of its name: gpt-4o finds gpt-4o-mini too">
          <input type="text" data-testid="filter-model" value=${draft.model} onInput=${(e: Event) => set({ model: value(e) })} />
        <//>
        <${Field} label="Status">
          <select data-testid="filter-status" value=${draft.status} disabled=${draft.code.trim() !== ''} onChange=${(e: Event) => set({ status: value(e) as Filters['status'] })}>
            <option value="">All</option>
            <option value="ok">OK</option>
            <option value="error">Errors</option>
          </select>
        <//>
        <${Field} label="Status code" hint="One HTTP status, such as 429">
          <input type="text" inputmode="numeric" pattern="[1-5][0-9]{2}" maxlength="3" data-testid="filter-status-code" value=${draft.code} onInput=${(e: Event) => set({ code: value(e) })} />
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
          columns=${columns(withAccount, money)}
          rows=${page?.data ?? []}
          rowId=${(r: UsageRow) => r.request_id}
          rowClass=${() => 'clickable'}
          before=${(shown: readonly Column<UsageRow>[]) => (page === undefined ? null : html`<${TotalsRow} totals=${page.totals} shown=${shown} money=${money} />`)}
          empty=${loaded.ready ? 'No requests match this filter.' : 'Loading…'}
        />
      </div>
      <${RequestDrawer} subject=${drawer} onOpen=${setDrawer} onClose=${() => setDrawer(null)} />
      <${Pager} atNewest=${cursor === null} nextCursor=${page?.next_cursor ?? null} onOlder=${setCursor} onNewest=${() => setCursor(null)} />
    <//>
  `;
}
