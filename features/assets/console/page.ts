// #/assets: the asset library's groups made through the account's keys, newest first: each with the key it belongs
// to, whether it is bound to that key (a revoked key's groups are unbound until the operator rebinds them) and its
// newest assets beneath it with their statuses, read again every 2 s while one is still Processing. Read-only for an
// account's users; the operator also narrows the list to an account and rebinds a group to another live key of its
// account (by the key's id or name).

import { useEffect, useState } from 'preact/hooks';
import type { ConsoleAssetGroup as AssetGroup, ConsoleAssetGroupList as AssetGroupPage } from '../../../console/src/api-types.gen.js';
import { accountQuery, useApp } from '../../../console/src/app-context.js';
import { AccountSelect, useAccounts } from '../../../console/src/components/account-select.js';
import { formatTime } from '../../../console/src/components/format-time.js';
import { html } from '../../../console/src/components/html.js';
import type { PageDef } from '../../../console/src/page-def.js';
import { PageFrame } from '../../../console/src/components/page.js';
import { OffsetPages } from '../../../console/src/components/offset-pages.js';
import { useAction } from '../../../console/src/components/use-action.js';
import { useLoad } from '../../../console/src/components/use-load.js';

type AssetStatus = AssetGroup['assets'][number]['status'];

/** The server's page size. */
const PAGE = 50;
/** The mock library's assets turn Active 2 s after they were made; Volcengine's within seconds to minutes. */
const REFRESH_MS = 2_000;

const STATUS_CLASS: Readonly<Record<AssetStatus, string>> = { Active: 'status-active', Processing: 'status-disabled', Failed: 'status-error' };

const groupName = (g: AssetGroup): string => (g.name === '' ? g.id : g.name);

function RebindForm(props: { readonly group: AssetGroup; readonly busy: boolean; readonly onSubmit: (key: string) => void }) {
  const [key, setKey] = useState('');
  return html`
    <form class="row-actions rebind" data-testid="rebind-form" onSubmit=${(e: Event) => (e.preventDefault(), key.trim() !== '' && props.onSubmit(key.trim()))}>
      <input
        type="text"
        data-testid="rebind-key"
        aria-label=${`Key to bind ${groupName(props.group)} to`}
        placeholder="Key id or name"
        required
        value=${key}
        onInput=${(e: Event) => setKey((e.currentTarget as HTMLInputElement).value)}
      />
      <button type="submit" data-testid="rebind-submit" disabled=${props.busy}>Rebind</button>
    </form>
  `;
}

function Assets(props: { readonly group: AssetGroup }) {
  const { assets } = props.group;
  if (assets.length === 0) return html`<span class="muted" data-testid="no-assets">No assets in this group yet.</span>`;
  return html`
    <table class="assets" data-testid="table-assets">
      <thead>
        <tr><th data-col="asset-id" scope="col">Asset</th><th data-col="type" scope="col">Type</th><th data-col="status" scope="col">Status</th><th data-col="created" scope="col">Created</th></tr>
      </thead>
      <tbody>
        ${assets.map(
          (a) => html`
            <tr data-testid="asset" data-id=${a.id} key=${a.id}>
              <td data-col="asset-id"><code>${a.id}</code></td>
              <td data-col="type">${a.asset_type}</td>
              <td data-col="status"><span class=${`badge ${STATUS_CLASS[a.status] ?? ''}`} data-testid="asset-status">${a.status}</span></td>
              <td data-col="created">${formatTime(a.created_at)}</td>
            </tr>
          `,
        )}
      </tbody>
    </table>
  `;
}

export function AssetsPage() {
  const app = useApp();
  const operator = app.session?.user.operator === true;
  const withAccount = operator && app.account === '';
  const accounts = useAccounts();
  const action = useAction();
  const [offset, setOffset] = useState(0);
  const loaded = useLoad(() => app.api.get<AssetGroupPage>('/asset-groups', Object.assign({ offset }, accountQuery(app))), [offset, app.account]);
  const page = loaded.data;
  const groups = page?.data ?? [];
  // Polled only while something is still being processed: a settled library is not read again and again.
  const processing = groups.some((g) => g.assets.some((a) => a.status === 'Processing'));
  useEffect(() => {
    if (!processing) return;
    const timer = setInterval(() => {
      if (!document.hidden) loaded.refresh();
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [processing, offset, app.account]);

  const rebind = (group: AssetGroup, key: string): void =>
    void action.run(async () => {
      const saved = await app.api.post<AssetGroup>(`/asset-groups/${encodeURIComponent(group.id)}/bind`, { key });
      app.notify.notice(`Group ${groupName(saved)} is now bound to key ${saved.key.name ?? saved.key.id}.`);
      loaded.reload();
    });

  const columns = 5 + (withAccount ? 1 : 0) + (operator ? 1 : 0);
  const row = (g: AssetGroup) => html`
    <tbody data-testid="group" data-id=${g.id} key=${g.id}>
      <tr data-testid="row" data-id=${g.id} class=${g.bound ? 'group' : 'group status-revoked'}>
        <td data-col="name">${g.name === '' ? html`<span class="muted">(no name)</span>` : g.name}</td>
        <td data-col="id"><code>${g.id}</code></td>
        ${withAccount ? html`<td data-col="account">${g.account ?? '—'}</td>` : null}
        <td data-col="key" title=${`Key id ${g.key.id}`}>${g.key.name ?? html`<span class="muted">unknown key</span>`} <code class="hint">${g.key.id}</code></td>
        <td data-col="bound">
          <span class=${`badge ${g.bound ? 'status-active' : 'status-disabled'}`} data-testid="bound">${g.bound ? 'bound' : 'unbound'}</span>
        </td>
        <td data-col="created">${formatTime(g.created_at, false)}</td>
        ${operator ? html`<td data-col="rebind"><${RebindForm} key=${`${g.id}:${g.key.id}`} group=${g} busy=${action.busy} onSubmit=${(key: string) => rebind(g, key)} /></td>` : null}
      </tr>
      <tr class="group-assets"><td colspan=${columns} data-col="assets"><${Assets} group=${g} /></td></tr>
    </tbody>
  `;

  const total = page?.total ?? 0;
  return html`
    <${PageFrame}
      name="assets"
      title="Assets"
      ready=${loaded.ready}
      loads=${loaded.loads}
      tools=${html`<${AccountSelect} accounts=${accounts} onSwitch=${() => setOffset(0)} />`}
    >
      <p class="hint" data-testid="assets-summary">
        ${operator
          ? 'Asset groups made through the keys, with their newest assets. A revoked key\'s groups are unbound: bind one to another live key of its account.'
          : 'Asset groups made through your account\'s keys, with their newest assets. A revoked key\'s groups are unbound until the operator binds them to another key.'}
      </p>
      <div class="table-wrap">
        <table data-testid="table-asset-groups">
          <thead>
            <tr>
              <th data-col="name" scope="col">Group</th>
              <th data-col="id" scope="col">Id</th>
              ${withAccount ? html`<th data-col="account" scope="col">Account</th>` : null}
              <th data-col="key" scope="col">Key</th>
              <th data-col="bound" scope="col">Binding</th>
              <th data-col="created" scope="col">Created</th>
              ${operator ? html`<th data-col="rebind" scope="col">Bind to key</th>` : null}
            </tr>
          </thead>
          ${groups.map(row)}
          ${groups.length === 0
            ? html`<tbody><tr class="empty"><td colspan=${columns} data-testid="empty">${loaded.ready ? 'No asset groups yet.' : 'Loading…'}</td></tr></tbody>`
            : null}
        </table>
      </div>
      <${OffsetPages} noun="Groups" testid="groups-count" offset=${offset} shown=${groups.length} total=${total} page=${PAGE} setOffset=${setOffset} />
    <//>
  `;
}

/** The console's page of this feature (console/src/pages/index.ts lists the features' pages after the user pages). */
export const consolePage: PageDef = { path: '/assets', title: 'Assets', who: 'user', view: AssetsPage };
