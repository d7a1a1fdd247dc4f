// The request drawer: one request's detail (GET /console/api/requests/{id}) over the page that opened it (the usage
// log's row, the ledger's charge, the request search), or a ledger charge's requests, each opening its detail.
// Closed by its button or Escape; data-testid="request-drawer" with data-ready once its data is in.

import { useEffect } from 'preact/hooks';
import './request-drawer.css';
import type { ConsoleChargeRequests as ChargeRequests, ConsoleRequestDetail as RequestDetail } from '../api-types.gen.js';
import { accountQuery, useApp } from '../app-context.js';
import { formatCount, formatMoney, formatMs } from './format-number.js';
import { formatTime } from './format-time.js';
import { html } from './html.js';
import { useLoad } from './use-load.js';

/** What the drawer shows: one request, or the requests of one ledger charge. */
export type DrawerSubject = { readonly request: string } | { readonly charge: number };

function Row(props: { readonly label: string; readonly testid: string; readonly children: unknown }) {
  return html`<div class="detail-row"><dt>${props.label}</dt><dd data-testid=${props.testid}>${props.children}</dd></div>`;
}

function Attempts(props: { readonly detail: RequestDetail }) {
  const attempts = props.detail.attempts;
  if (attempts.length === 0) return html`<p class="muted" data-testid="no-attempts">No upstream was called.</p>`;
  return html`
    <table class="attempts" data-testid="attempts">
      <thead><tr><th>#</th><th>Channel</th><th>Status</th><th>Error</th><th class="num">Latency</th></tr></thead>
      <tbody>
        ${attempts.map(
          (a, i) => html`
            <tr data-testid="attempt">
              <td>${i + 1}</td>
              <td data-col="channel">${a.channel}</td>
              <td data-col="status">${a.status ?? '—'}</td>
              <td data-col="error">${a.error ?? ''}</td>
              <td class="num" data-col="latency">${a.latency_ms === null ? '—' : formatMs(a.latency_ms)}</td>
            </tr>
          `,
        )}
      </tbody>
    </table>
  `;
}

function Prices(props: { readonly detail: RequestDetail }) {
  const { price, currency } = props.detail;
  if (price === null) return html`<p class="muted" data-testid="no-price">No price applied.</p>`;
  const unit = price.per_unit;
  return html`
    <dl class="detail" data-testid="price">
      <${Row} label="Price version" testid="price-version"><code>${price.version}</code><//>
      <${Row} label="Group multiplier" testid="multiplier">×${price.multiplier}<//>
      ${price.per_call === null ? null : html`<${Row} label="Per call" testid="per-call">${formatMoney(price.per_call, currency)}<//>`}
      ${unit === null
        ? null
        : html`
            <${Row} label="Input / 1M tokens" testid="price-input">${formatMoney(unit.input_per_million, currency)}<//>
            <${Row} label="Output / 1M tokens" testid="price-output">${formatMoney(unit.output_per_million, currency)}<//>
            <${Row} label="Cache read / 1M" testid="price-cache-read">${formatMoney(unit.cache_read_per_million, currency)}<//>
            <${Row} label="Cache write / 1M" testid="price-cache-write">${formatMoney(unit.cache_write_per_million, currency)}<//>
            ${unit.per_image === '0' ? null : html`<${Row} label="Per image" testid="price-image">${formatMoney(unit.per_image, currency)}<//>`}
            ${unit.per_second === '0' ? null : html`<${Row} label="Per second" testid="price-second">${formatMoney(unit.per_second, currency)}<//>`}
          `}
    </dl>
  `;
}

function Detail(props: { readonly id: string; readonly onCharge: (id: number) => void; readonly onRequest: (id: string) => void }) {
  const app = useApp();
  const loaded = useLoad(() => app.api.get<RequestDetail>(`/requests/${encodeURIComponent(props.id)}`), [props.id]);
  const d = loaded.data;
  if (d === undefined) return html`<p class="muted" data-testid="drawer-loading">${loaded.ready ? 'No such request.' : 'Loading…'}</p>`;
  const t = d.tokens;
  return html`
    <div data-testid="request-detail" data-id=${d.request_id}>
      <dl class="detail">
        <${Row} label="Request id" testid="detail-request-id"><code>${d.request_id}</code><//>
        <${Row} label="Time" testid="detail-time">${formatTime(d.time)}<//>
        <${Row} label="Route" testid="detail-route">${d.route}<//>
        <${Row} label="Model asked" testid="detail-model">${d.model}<//>
        <${Row} label="Model served" testid="detail-upstream-model">${d.upstream_model ?? '—'}<//>
        <${Row} label="Key" testid="detail-key">${d.key.name}<//>
        <${Row} label="Account" testid="detail-account">${d.account ?? '—'}<//>
        <${Row} label="Group" testid="detail-group">${d.group}<//>
        <${Row} label="Channel" testid="detail-channel">${d.channel ?? '—'}<//>
        <${Row} label="Status" testid="detail-status">
          <span class=${`badge ${d.status < 400 ? 'status-ok' : 'status-error'}`}>${d.status}</span> ${d.error_code ?? ''}
          ${d.error_message === null ? null : html`<div class="hint" data-testid="detail-error-message">${d.error_message}</div>`}
        <//>
        <${Row} label="Time to first byte" testid="detail-ttfb">${formatMs(d.ttft_ms)}<//>
        <${Row} label="Total time" testid="detail-latency">${formatMs(d.latency_ms)}<//>
      </dl>
      <h3>Attempts</h3>
      <${Attempts} detail=${d} />
      <h3>Tokens</h3>
      <dl class="detail" data-testid="tokens">
        <${Row} label="Input" testid="tokens-input">${formatCount(t.input)}<//>
        <${Row} label="Output" testid="tokens-output">${formatCount(t.output)}${t.estimated ? ' (estimated)' : ''}<//>
        <${Row} label="Cache read" testid="tokens-cache-read">${formatCount(t.cache_read)}<//>
        <${Row} label="Cache write" testid="tokens-cache-write">${formatCount(t.cache_write)}<//>
        <${Row} label="Reasoning" testid="tokens-reasoning">${formatCount(t.reasoning)}<//>
        ${t.images === 0 ? null : html`<${Row} label="Images" testid="tokens-images">${formatCount(t.images)}<//>`}
        ${t.seconds === 0 ? null : html`<${Row} label="Seconds" testid="tokens-seconds">${formatCount(t.seconds)}<//>`}
      </dl>
      <h3>Price and charge</h3>
      <${Prices} detail=${d} />
      <dl class="detail">
        <${Row} label="Cost" testid="detail-cost">${d.cost === null ? '—' : formatMoney(d.cost, d.currency)}<//>
        <${Row} label="Ledger charge" testid="detail-charge">
          ${d.charge === null
            ? '—'
            : html`<button type="button" class="link" data-testid="open-charge" onClick=${() => props.onCharge(d.charge?.id ?? 0)}>
                #${d.charge.id}: ${formatMoney(d.charge.amount, d.currency)} (${d.charge.note ?? ''})
              </button>`}
        <//>
      </dl>
      ${d.made === null ? null : html`<${Made} made=${d.made} onRequest=${props.onRequest} />`}
    </div>
  `;
}

/** What the request made or acted on (a task it started, a thing it stored): its id, and its own record when it has one. */
function Made(props: { readonly made: NonNullable<RequestDetail['made']>; readonly onRequest: (id: string) => void }) {
  const { made } = props;
  return html`
    <h3>Made</h3>
    <dl class="detail" data-testid="detail-made" data-kind=${made.kind}>
      <${Row} label=${made.kind.replace(/_/g, ' ')} testid="detail-made-id">
        ${made.record
          ? html`<button type="button" class="link" data-testid="open-made" onClick=${() => props.onRequest(made.id)}>${made.id}</button>`
          : made.id}
      <//>
    </dl>
  `;
}

function Charge(props: { readonly id: number; readonly onRequest: (id: string) => void }) {
  const app = useApp();
  const loaded = useLoad(() => app.api.get<ChargeRequests>(`/ledger/${props.id}/requests`, { limit: 200, ...accountQuery(app) }), [props.id, app.account]);
  const page = loaded.data;
  if (page === undefined) return html`<p class="muted" data-testid="drawer-loading">${loaded.ready ? 'No such ledger entry.' : 'Loading…'}</p>`;
  return html`
    <div data-testid="charge-requests" data-id=${String(page.ledger_id)}>
      <p>Ledger entry #${page.ledger_id} covers ${page.data.length}${page.next_cursor === null ? '' : '+'} request${page.data.length === 1 ? '' : 's'}.</p>
      <ul class="plain">
        ${page.data.map(
          (r) => html`
            <li data-testid="charge-request" data-id=${r.request_id}>
              <button type="button" class="link" onClick=${() => props.onRequest(r.request_id)}><code>${r.request_id}</code></button>
              ${' '}${formatTime(r.time)} · ${r.key_name} · ${r.model} · ${r.cost === null ? '—' : formatMoney(r.cost, page.currency)}
            </li>
          `,
        )}
      </ul>
    </div>
  `;
}

export interface RequestDrawerProps {
  readonly subject: DrawerSubject | null;
  /** Shows another subject (a charge's request, a request's charge). */
  readonly onOpen: (subject: DrawerSubject) => void;
  readonly onClose: () => void;
}

export function RequestDrawer(props: RequestDrawerProps) {
  const { subject, onClose } = props;
  useEffect(() => {
    if (subject === null) return undefined;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') onClose();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [subject, onClose]);
  if (subject === null) return null;
  return html`
    <aside class="drawer" data-testid="request-drawer" role="dialog" aria-label=${'request' in subject ? 'Request detail' : 'Charge'}>
      <div class="drawer-head">
        <h2>${'request' in subject ? 'Request' : 'Ledger charge'}</h2>
        <button type="button" data-testid="drawer-close" onClick=${onClose}>Close</button>
      </div>
      ${'request' in subject
        ? html`<${Detail} key=${subject.request} id=${subject.request} onCharge=${(charge: number) => props.onOpen({ charge })} onRequest=${(request: string) => props.onOpen({ request })} />`
        : html`<${Charge} key=${String(subject.charge)} id=${subject.charge} onRequest=${(request: string) => props.onOpen({ request })} />`}
    </aside>
  `;
}

/** The id of the table row a click landed in (the Table's data-id), for pages that open the drawer from a row. */
export function clickedRowId(e: Event): string | null {
  const target = e.target as Element | null;
  // A click on a link or button of the row does its own thing.
  if (target === null || target.closest('a, button, input, select') !== null) return null;
  return target.closest('tr[data-testid="row"]')?.getAttribute('data-id') ?? null;
}
