// #/dashboard: balance and spend cards, spend and token charts per bucket (split by model or by key at will), and
// the range's sums by model and by key.
// An operator picks an account or sees all of them (no balance then: it is per account).

import { useState } from 'preact/hooks';
import type { Dashboard, UsageSums } from '../api-types.js';
import { accountQuery, useApp } from '../app-context.js';
import { AccountSelect, useAccounts } from '../components/account-select.js';
import { DashboardCharts } from '../components/dashboard-charts.js';
import { formatCount, formatMoney } from '../components/format-number.js';
import { html } from '../components/html.js';
import { PageFrame } from '../components/page.js';
import { RangePicker, initialChoice, resolveRange, type RangeChoice } from '../components/range-picker.js';
import { SplitPicker, type SplitBy } from '../components/split-picker.js';
import { Table, type Column } from '../components/table.js';
import { useLoad } from '../components/use-load.js';

function sumColumns<T extends UsageSums>(currency: string): Column<T>[] {
  return [
    { id: 'requests', title: 'Requests', num: true, cell: (r) => formatCount(r.requests) },
    { id: 'errors', title: 'Errors', num: true, cell: (r) => formatCount(r.errors) },
    { id: 'input', title: 'Input tokens', num: true, cell: (r) => formatCount(r.input_tokens) },
    { id: 'output', title: 'Output tokens', num: true, cell: (r) => formatCount(r.output_tokens) },
    { id: 'cached', title: 'Cached', num: true, cell: (r) => formatCount(r.cached_tokens) },
    { id: 'cost', title: 'Cost', num: true, cell: (r) => formatMoney(r.cost, currency) },
  ];
}

function Card(props: { readonly testid: string; readonly label: string; readonly value: string; readonly hint?: string }) {
  return html`
    <div class="stat" data-testid=${props.testid}>
      <div class="stat-label">${props.label}</div>
      <div class="stat-value" data-testid=${`${props.testid}-value`}>${props.value}</div>
      ${props.hint === undefined ? null : html`<div class="hint">${props.hint}</div>`}
    </div>
  `;
}

function Cards(props: { readonly d: Dashboard; readonly operatorAll: boolean }) {
  const { d } = props;
  const t = d.totals;
  const rate = t.requests === 0 ? '' : ` (${((t.errors / t.requests) * 100).toFixed(1)}%)`;
  return html`
    <div class="stats">
      <${Card}
        testid="card-balance"
        label="Balance"
        value=${formatMoney(d.balance, d.currency)}
        hint=${props.operatorAll ? 'Choose an account to see its balance' : undefined}
      />
      <${Card} testid="card-spend-today" label="Spend today" value=${formatMoney(d.spend_today, d.currency)} />
      <${Card} testid="card-spend-month" label="Spend this month" value=${formatMoney(d.spend_month, d.currency)} />
      <${Card} testid="card-requests" label="Requests" value=${formatCount(t.requests)} hint="In the range" />
      <${Card} testid="card-tokens-in" label="Tokens in" value=${formatCount(t.input_tokens)} hint="In the range" />
      <${Card} testid="card-tokens-out" label="Tokens out" value=${formatCount(t.output_tokens)} hint="In the range" />
      <${Card} testid="card-errors" label="Errors" value=${`${formatCount(t.errors)}${rate}`} hint="In the range" />
    </div>
  `;
}

export function DashboardPage() {
  const app = useApp();
  const accounts = useAccounts();
  const [choice, setChoice] = useState<RangeChoice>(() => initialChoice('24h'));
  const [split, setSplit] = useState<SplitBy>('none');
  const loaded = useLoad(async () => {
    const range = resolveRange(choice);
    return range === null ? null : app.api.get<Dashboard>('/dashboard', { ...range, ...accountQuery(app) });
  }, [choice, app.account]);
  const d = loaded.data;
  const currency = d?.currency ?? '';
  const operatorAll = app.session?.user.operator === true && app.account === '';

  return html`
    <${PageFrame} name="dashboard" title="Dashboard" ready=${loaded.ready} loads=${loaded.loads} tools=${html`<${AccountSelect} accounts=${accounts} />`}>
      <div class="chart-controls">
        <${RangePicker} value=${choice} presets=${['24h', '7d', '30d', 'custom']} onChange=${setChoice} />
        <${SplitPicker} value=${split} onChange=${setSplit} />
      </div>
      ${d === null ? html`<p class="muted" data-testid="range-incomplete">Choose a from and a to date (from before to).</p>` : null}
      ${d === undefined || d === null
        ? null
        : html`
            <${Cards} d=${d} operatorAll=${operatorAll} />
            <${DashboardCharts} d=${d} split=${split} />
            <h2>By model</h2>
            <${Table}
              testid="table-by-model"
              columns=${[{ id: 'model', title: 'Model', cell: (r: Dashboard['by_model'][number]) => r.model }, ...sumColumns(currency)]}
              rows=${d.by_model}
              rowId=${(r: Dashboard['by_model'][number]) => r.model}
              empty="No requests in this range."
            />
            <h2>By key</h2>
            <${Table}
              testid="table-by-key"
              columns=${[{ id: 'key', title: 'Key', cell: (r: Dashboard['by_key'][number]) => r.name ?? r.key_id }, ...sumColumns(currency)]}
              rows=${d.by_key}
              rowId=${(r: Dashboard['by_key'][number]) => r.key_id}
              empty="No requests in this range."
            />
          `}
    <//>
  `;
}
