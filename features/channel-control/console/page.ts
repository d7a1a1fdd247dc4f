// #/channel-control (operator): each channel's YAML weight beside the operator's run-time override ("weight 3 (yaml
// 1)", "disabled at run time"), its cool-down here and its health over 5 and 60 minutes (every instance's records);
// disable, enable, set the weight, or clear the override (back to YAML). A change reaches every instance within a second.
// A channel out of rotation (or probing) has a button that puts it back now.

import { useState } from 'preact/hooks';
import type {
  ConsoleChannelControlList as List,
  ConsoleChannelControlRow as Row,
  ConsoleChannelOverrideCleared as Cleared,
  ConsoleChannelRotationResetDone as Reset,
} from '../../../console/src/api-types.gen.js';
import { useApp } from '../../../console/src/app-context.js';
import { formatCount, formatMs, formatRate } from '../../../console/src/components/format-number.js';
import { html } from '../../../console/src/components/html.js';
import { PageFrame } from '../../../console/src/components/page.js';
import { Table, type Column } from '../../../console/src/components/table.js';
import { useAction, type Action } from '../../../console/src/components/use-action.js';
import { useLoad } from '../../../console/src/components/use-load.js';
import type { PageDef } from '../../../console/src/page-def.js';

type Window = NonNullable<Row['health']>['m5'];
type Orphan = List['orphans'][number];

function state(r: Row) {
  const run = r.effective.enabled
    ? html`<span class="badge status-active" data-testid="channel-state">enabled</span>`
    : html`<span class="badge status-disabled" data-testid="channel-state">disabled at run time</span>`;
  const cooling = r.cooling_ms > 0 ? html` <span class="badge status-disabled">cooling</span> ${Math.ceil(r.cooling_ms / 1000)} s left` : null;
  return html`${run}${cooling}${rotation(r.health_state)}`;
}

/** Out of rotation after too many failures (until its probe), or its probe in flight; nothing while it is in. */
function rotation(h: Row['health_state']) {
  if (h.state === 'probing') return html` <span class="badge status-disabled" data-testid="channel-rotation">probing</span>`;
  if (h.state === 'out') {
    const left = h.until === null ? '' : ` probe in ${Math.max(0, Math.ceil((Date.parse(h.until) - Date.now()) / 1000))} s`;
    return html` <span class="badge status-disabled" data-testid="channel-rotation">out of rotation</span>${left}`;
  }
  return h.failures > 0 ? html` <span class="muted" data-testid="channel-rotation">${h.failures} of last ${h.window} failed</span>` : null;
}

/** Out of rotation (or probing): the operator may put it back now, not at its next served probe. */
function ResetRotation(props: { readonly row: Row; readonly action: Action; readonly saved: () => void }) {
  const app = useApp();
  const { row, action } = props;
  if (row.health_state.state === 'in') return null;
  return html` <button type="button" data-testid="channel-rotation-reset" disabled=${action.busy} onClick=${() =>
    void action.run(async () => {
      const done = await app.api.post<Reset>(`/channel-control/${encodeURIComponent(row.name)}/rotation/reset`, {});
      app.notify.notice(`${done.name}: back in rotation${done.fleet ? ' on every instance' : ' on this instance (no Redis: each instance keeps its own)'}.`);
      props.saved();
    })}>Back in rotation</button>`;
}

function weight(r: Row) {
  const text = r.override?.weight == null ? `weight ${r.yaml.weight}` : `weight ${r.effective.weight} (yaml ${r.yaml.weight})`;
  return html`<span data-testid="channel-weight">${text}</span>`;
}

function health(w: Window | undefined) {
  if (w === undefined || w.requests === 0) return html`<span class="muted">no requests</span>`;
  // Counts are exact; the percentiles read the newest records only on a busy channel, and say so.
  const sampled = w.percentiles_sampled ? html` <span class="muted">(percentiles of the newest ${formatCount(w.percentile_sample)})</span>` : null;
  return html`${formatCount(w.requests)} req, ${formatRate(w.error_rate)} errors; latency p50 ${formatMs(w.latency_p50_ms)} p99 ${formatMs(w.latency_p99_ms)}; TTFB p50 ${formatMs(w.ttfb_p50_ms)} p99 ${formatMs(w.ttfb_p99_ms)}${sampled}`;
}

/** Overrides stored for names no longer configured: ignored now, in force again if the name comes back. */
function Orphans(props: { readonly rows: readonly Orphan[]; readonly action: Action; readonly cleared: () => void }) {
  const app = useApp();
  if (props.rows.length === 0) return null;
  const columns: Column<Orphan>[] = [
    { id: 'name', title: 'Channel', cell: (o) => o.name },
    { id: 'override', title: 'Stored override', cell: (o) => `${o.disabled ? 'disabled' : 'enabled'}${o.weight === null ? '' : `, weight ${o.weight}`}` },
    { id: 'by', title: 'Changed by', cell: (o) => `${o.updated_by}, ${o.updated_at}` },
    {
      id: 'actions',
      title: 'Change',
      cell: (o) =>
        html`<button type="button" data-testid="orphan-clear" disabled=${props.action.busy} onClick=${() =>
          void props.action.run(async () => {
            await app.api.del<Cleared>(`/channel-control/${encodeURIComponent(o.name)}`);
            app.notify.notice(`${o.name}: its stored override is gone.`);
            props.cleared();
          })}>Clear</button>`,
    },
  ];
  return html`
    <h2>Overrides of channels no longer configured</h2>
    <p class="hint">Ignored while gateway.yaml has no channel of this name; in force again if one comes back. Clear them to start from the YAML.</p>
    <${Table} testid="table-channel-orphans" columns=${columns} rows=${props.rows} rowId=${(o: Orphan) => o.name} empty="" />
  `;
}

function Controls(props: { readonly row: Row; readonly action: Action; readonly saved: () => void }) {
  const app = useApp();
  const { row, action } = props;
  const [weightText, setWeight] = useState(String(row.effective.weight));
  const path = `/channel-control/${encodeURIComponent(row.name)}`;
  const save = (disabled: boolean, w: number | null): void =>
    void action.run(async () => {
      const after = await app.api.patch<Row>(path, { disabled, weight: w });
      app.notify.notice(`${after.name}: ${after.effective.enabled ? 'enabled' : 'disabled'}, weight ${after.effective.weight}, on every instance within a second.`);
      props.saved();
    });
  const keptWeight = row.override?.weight ?? null;
  return html`
    <span class="row-actions">
      ${row.effective.enabled
        ? html`<button type="button" data-testid="channel-disable" disabled=${action.busy} onClick=${() => save(true, keptWeight)}>Disable</button>`
        : html`<button type="button" data-testid="channel-enable" disabled=${action.busy} onClick=${() => save(false, keptWeight)}>Enable</button>`}
      <input type="number" min="0.001" max="1000" step="any" size="5" aria-label=${`Weight of ${row.name}`} data-testid="channel-weight-input" value=${weightText} onInput=${(e: Event) => setWeight((e.target as HTMLInputElement).value)} />
      <button type="button" data-testid="channel-weight-set" disabled=${action.busy} onClick=${() => save(!row.effective.enabled, Number(weightText))}>Set weight</button>
      ${row.override === null
        ? null
        : html`<button type="button" data-testid="channel-clear" disabled=${action.busy} onClick=${() =>
            void action.run(async () => {
              await app.api.del<Cleared>(path);
              app.notify.notice(`${row.name}: back to its YAML values.`);
              props.saved();
            })}>Back to YAML</button>`}
    </span>
  `;
}

export function ChannelControlPage() {
  const app = useApp();
  const action = useAction();
  const loaded = useLoad(() => app.api.get<List>('/channel-control'), []);
  const columns: Column<Row>[] = [
    { id: 'name', title: 'Channel', cell: (r) => r.name },
    { id: 'state', title: 'State', cell: (r) => html`${state(r)}<${ResetRotation} row=${r} action=${action} saved=${() => loaded.reload()} />` },
    { id: 'weight', title: 'Weight', cell: weight },
    { id: 'actions', title: 'Change', cell: (r) => html`<${Controls} key=${`${r.name}-${r.effective.weight}`} row=${r} action=${action} saved=${() => loaded.reload()} />` },
    { id: 'health-5', title: 'Last 5 min', cell: (r) => health(r.health?.m5) },
    { id: 'health-60', title: 'Last 60 min', cell: (r) => health(r.health?.m60) },
    { id: 'by', title: 'Changed by', cell: (r) => (r.override === null ? html`<span class="muted">YAML</span>` : `${r.override.updated_by}, ${r.override.updated_at}`) },
  ];
  return html`
    <${PageFrame} name="channel-control" title="Channel control" ready=${loaded.ready} loads=${loaded.loads}>
      <p class="hint">Run-time changes over gateway.yaml, on every instance within a second and kept across restarts. A disabled channel gets no request; a conversation bound to it moves.</p>
      <${Table} testid="table-channel-control" columns=${columns} rows=${loaded.data?.data ?? []} rowId=${(r: Row) => r.name} empty=${loaded.ready ? 'No channels.' : 'Loading…'} />
      <${Orphans} rows=${loaded.data?.orphans ?? []} action=${action} cleared=${() => loaded.reload()} />
    <//>
  `;
}

/** The console's page of this feature (console/src/pages/index.ts lists the features' pages after the user pages). */
export const consolePage: PageDef = { path: '/channel-control', title: 'Channel control', who: 'operator', view: ChannelControlPage };
