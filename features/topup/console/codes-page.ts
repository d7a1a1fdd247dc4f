// #/topup-codes (operator): batches of top-up codes. Make a batch (its secrets shown once, to copy or save as CSV);
// the batches with what became of their codes, each disabled or enabled; the codes, masked, filtered by batch, status
// and the account they went into, each disabled or enabled, and exported as CSV with the same filter.

import { useState } from 'preact/hooks';
import type {
  ConsoleTopupBatch as Batch,
  ConsoleTopupBatchList as BatchPage,
  ConsoleTopupBatchMade as BatchMade,
  ConsoleTopupCode as Code,
  ConsoleTopupCodeList as CodePage,
} from '../../../console/src/api-types.gen.js';
import { apiUrl } from '../../../console/src/api.js';
import { useApp } from '../../../console/src/app-context.js';
import { formatMoney } from '../../../console/src/components/format-number.js';
import { formatTime } from '../../../console/src/components/format-time.js';
import { html } from '../../../console/src/components/html.js';
import { newIdempotencyKey } from '../../../console/src/components/idempotency-key.js';
import { OffsetPages } from '../../../console/src/components/offset-pages.js';
import { PageFrame } from '../../../console/src/components/page.js';
import { Table, type Column } from '../../../console/src/components/table.js';
import { useAction } from '../../../console/src/components/use-action.js';
import { useLoad } from '../../../console/src/components/use-load.js';
import type { PageDef } from '../../../console/src/page-def.js';
import { BatchForm, type BatchDraft } from './batch-form.js';
import { MadeCodes } from './made-codes.js';

/** The server's page sizes. */
const BATCH_PAGE = 50;
const CODE_PAGE = 100;
const STATUS_CLASS: Readonly<Record<Code['status'], string>> = { active: 'status-active', redeemed: 'status-revoked', disabled: 'status-disabled', expired: 'status-expired' };

// A type, not an interface: it is a query (an index signature's record).
type Filter = {
  readonly batch: string;
  readonly status: '' | Code['status'];
  readonly account: string;
};

const badge = (status: string) => html`<span class=${`badge ${STATUS_CLASS[status as Code['status']] ?? ''}`} data-testid="status">${status}</span>`;

export function TopupCodesPage() {
  const app = useApp();
  const action = useAction();
  const [form, setForm] = useState<string | null>(null);
  const [made, setMade] = useState<BatchMade | null>(null);
  const [batchOffset, setBatchOffset] = useState(0);
  const [codeOffset, setCodeOffset] = useState(0);
  const [filter, setFilter] = useState<Filter>({ batch: '', status: '', account: '' });
  const batches = useLoad(() => app.api.get<BatchPage>('/topup/batches', { offset: batchOffset }), [batchOffset]);
  const codes = useLoad(() => app.api.get<CodePage>('/topup/codes', Object.assign({ offset: codeOffset }, filter)), [codeOffset, filter]);
  const reload = (): void => {
    batches.reload();
    codes.reload();
  };
  const narrow = (next: Partial<Filter>): void => {
    setCodeOffset(0);
    setFilter(Object.assign({}, filter, next));
  };

  const create = (idempotencyKey: string, draft: BatchDraft): void =>
    void action.run(async () => {
      const body = Object.assign(
        { amount: draft.amount, count: draft.count, idempotency_key: idempotencyKey },
        draft.expires === '' ? {} : { expires_at: draft.expires },
        draft.note === '' ? {} : { note: draft.note },
      );
      const answer = await app.api.post<BatchMade>('/topup/batches', body);
      setForm(null);
      if (answer.applied) setMade(answer);
      else app.notify.notice(`Batch ${answer.batch.id} was made already (its codes were shown then).`);
      reload();
    });

  const toggle = (what: 'batches' | 'codes', id: string, disabled: boolean): void =>
    void action.run(async () => {
      await app.api.patch<Batch | Code>(`/topup/${what}/${encodeURIComponent(id)}`, { disabled });
      app.notify.notice(`${what === 'batches' ? 'Batch' : 'Code'} ${id} ${disabled ? 'disabled' : 'enabled'}.`);
      reload();
    });

  const toggleButton = (what: 'batches' | 'codes', id: string, disabled: boolean) => html`
    <button type="button" data-testid=${disabled ? 'enable' : 'disable'} disabled=${action.busy} onClick=${() => toggle(what, id, !disabled)}>${disabled ? 'Enable' : 'Disable'}</button>
  `;

  const batchColumns: Column<Batch>[] = [
    { id: 'id', title: 'Batch', cell: (b) => html`<code>${b.id}</code>` },
    { id: 'amount', title: 'Each', num: true, cell: (b) => formatMoney(b.amount, b.currency) },
    { id: 'redeemed', title: 'Redeemed', num: true, cell: (b) => `${b.redeemed} / ${b.count}` },
    { id: 'status', title: 'Status', cell: (b) => badge(b.status) },
    { id: 'expires', title: 'Expires', cell: (b) => (b.expires_at === null ? 'never' : formatTime(b.expires_at, false)) },
    { id: 'note', title: 'Note', cell: (b) => b.note ?? '' },
    { id: 'created', title: 'Created', cell: (b) => formatTime(b.created_at, false) },
    {
      id: 'actions',
      title: '',
      cell: (b) => html`
        <span class="row-actions">
          <button type="button" data-testid="show-codes" onClick=${() => narrow({ batch: b.id })}>Codes</button>
          ${toggleButton('batches', b.id, b.disabled_at !== null)}
        </span>
      `,
    },
  ];

  const codeColumns: Column<Code>[] = [
    { id: 'masked', title: 'Code', cell: (c) => html`<code title=${c.id}>${c.masked}</code>` },
    { id: 'batch', title: 'Batch', cell: (c) => html`<code>${c.batch}</code>` },
    { id: 'amount', title: 'Amount', num: true, cell: (c) => formatMoney(c.amount, c.currency) },
    { id: 'status', title: 'Status', cell: (c) => badge(c.status) },
    { id: 'account', title: 'Account', cell: (c) => c.account ?? '—' },
    { id: 'redeemed-by', title: 'Redeemed by', cell: (c) => c.redeemed_by ?? '—' },
    { id: 'redeemed-at', title: 'Redeemed', cell: (c) => (c.redeemed_at === null ? '—' : formatTime(c.redeemed_at)) },
    { id: 'actions', title: '', cell: (c) => (c.status === 'redeemed' ? null : toggleButton('codes', c.id, c.disabled_at !== null)) },
  ];

  const batchRows = batches.data?.data ?? [];
  const codeRows = codes.data?.data ?? [];
  return html`
    <${PageFrame}
      name="topup-codes"
      title="Top-up codes"
      ready=${batches.ready && codes.ready}
      loads=${codes.loads}
      tools=${html`<button type="button" class="primary" data-testid="create-batch" onClick=${() => (setMade(null), setForm(newIdempotencyKey()))}>New batch</button>`}
    >
      ${form === null ? null : html`<${BatchForm} key=${form} busy=${action.busy} onSubmit=${(d: BatchDraft) => create(form, d)} onCancel=${() => setForm(null)} />`}
      ${made === null ? null : html`<${MadeCodes} made=${made} onDone=${() => setMade(null)} />`}
      <h2>Batches</h2>
      <${Table} testid="table-batches" columns=${batchColumns} rows=${batchRows} rowId=${(b: Batch) => b.id} empty=${batches.ready ? 'No batches yet.' : 'Loading…'} />
      <${OffsetPages} noun="Batches" testid="batches-count" offset=${batchOffset} shown=${batchRows.length} total=${batches.data?.total ?? 0} page=${BATCH_PAGE} setOffset=${setBatchOffset} />
      <h2>Codes</h2>
      <div class="filters" data-testid="code-filters">
        <label class="field">
          <span class="label">Batch</span>
          <select data-testid="filter-batch" value=${filter.batch} onChange=${(e: Event) => narrow({ batch: (e.currentTarget as HTMLSelectElement).value })}>
            <option value="">All</option>
            ${[...new Set([filter.batch, ...batchRows.map((b) => b.id)])].filter((id) => id !== '').map((id) => html`<option value=${id}>${id}</option>`)}
          </select>
        </label>
        <label class="field">
          <span class="label">Status</span>
          <select data-testid="filter-status" value=${filter.status} onChange=${(e: Event) => narrow({ status: (e.currentTarget as HTMLSelectElement).value as Filter['status'] })}>
            <option value="">Any</option>
            ${(['active', 'redeemed', 'disabled', 'expired'] as const).map((s) => html`<option value=${s}>${s}</option>`)}
          </select>
        </label>
        <label class="field">
          <span class="label">Redeemed into</span>
          <input type="text" data-testid="filter-account" placeholder="Account" value=${filter.account} onChange=${(e: Event) => narrow({ account: (e.currentTarget as HTMLInputElement).value.trim() })} />
        </label>
        <a class="button" data-testid="export-codes" href=${apiUrl('/topup/codes.csv', filter)} download="topup-codes.csv">Export CSV</a>
      </div>
      <${Table} testid="table-codes" columns=${codeColumns} rows=${codeRows} rowId=${(c: Code) => c.id} empty=${codes.ready ? 'No codes match.' : 'Loading…'} />
      <${OffsetPages} noun="Codes" testid="codes-count" offset=${codeOffset} shown=${codeRows.length} total=${codes.data?.total ?? 0} page=${CODE_PAGE} setOffset=${setCodeOffset} />
    <//>
  `;
}

export const topupCodesPage: PageDef = { path: '/topup-codes', title: 'Top-up codes', who: 'operator', view: TopupCodesPage };
