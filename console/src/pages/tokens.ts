// #/tokens: the account's API keys. Create one (its secret shown once, with Copy), edit, disable or enable, and
// revoke (asked twice, in the row). An operator sees one account's keys or all, and picks the account on create.
// Keys declared in gateway.yaml are listed too, marked so and without actions: they are changed in the file.

import { useState } from 'preact/hooks';
import type { CreatedKey, Key, KeyList, Limits } from '../api-types.js';
import { accountQuery, useApp } from '../app-context.js';
import { AccountSelect, useAccounts } from '../components/account-select.js';
import { CopyBox } from '../components/copy-box.js';
import { formatCount } from '../components/format-number.js';
import { formatTime } from '../components/format-time.js';
import { html } from '../components/html.js';
import { createBody, draftOf, editBody, emptyDraft, type KeyDraft } from '../components/key-draft.js';
import { useMoney } from '../components/money.js';
import { PageFrame } from '../components/page.js';
import { Table, type Column } from '../components/table.js';
import { TokenForm } from '../components/token-form.js';
import { useAction } from '../components/use-action.js';
import { useLoad } from '../components/use-load.js';

/** The open form; an edit keeps the draft it opened with, which its Save compares against (only changes are sent). */
type Panel = { readonly kind: 'none' } | { readonly kind: 'create' } | { readonly kind: 'edit'; readonly key: Key; readonly loaded: KeyDraft };

function formatLimits(limits: Limits | undefined): string {
  if (limits === undefined) return '—';
  const parts: string[] = [];
  if (limits.rpm !== undefined) parts.push(`${formatCount(limits.rpm)} rpm`);
  if (limits.tpm !== undefined) parts.push(`${formatCount(limits.tpm)} tpm`);
  if (limits.concurrency !== undefined) parts.push(`${formatCount(limits.concurrency)} concurrent`);
  const daily = limits.tokens_per_day;
  if (daily !== undefined) {
    parts.push(typeof daily === 'number' ? `${formatCount(daily)} tokens/day` : `${formatCount(daily.tokens)} tokens/${daily.period ?? 'day'}${daily.timezone === undefined ? '' : ` (${daily.timezone})`}`);
  }
  return parts.length === 0 ? '—' : parts.join(' · ');
}

function NewKey(props: { readonly created: CreatedKey; readonly onDone: () => void }) {
  return html`
    <div class="card secret" data-testid="new-key-panel">
      <h2>Token ${props.created.name} created</h2>
      <p class="warn" data-testid="new-key-warning">Copy this key now: it will not be shown again.</p>
      <${CopyBox} testid="new-key" text=${props.created.key} />
      <div class="actions"><button type="button" data-testid="new-key-done" onClick=${props.onDone}>Done</button></div>
    </div>
  `;
}

export function TokensPage() {
  const app = useApp();
  const operator = app.session?.user.operator === true;
  const groups = app.session?.groups ?? [];
  const accounts = useAccounts();
  const money = useMoney();
  const action = useAction();
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const loaded = useLoad(() => app.api.get<KeyList>('/keys', accountQuery(app)), [app.account]);
  const groupOf = (key: Key): readonly string[] => groups.find((g) => g.name === key.group)?.models ?? [];

  const submitCreate = (draft: KeyDraft): void =>
    void action.run(async () => {
      const key = await app.api.post<CreatedKey>('/keys', createBody(draft, operator));
      setCreated(key);
      setPanel({ kind: 'none' });
      loaded.reload();
    });

  const submitEdit = (key: Key, before: KeyDraft, draft: KeyDraft): void =>
    void action.run(async () => {
      const body = editBody(before, draft);
      if (Object.keys(body).length === 0) {
        setPanel({ kind: 'none' });
        app.notify.notice(`Nothing changed: token ${key.name} is as it was.`);
        return;
      }
      const saved = await app.api.patch<Key>(`/keys/${encodeURIComponent(key.id)}`, body);
      setPanel({ kind: 'none' });
      app.notify.notice(`Saved token ${saved.name}.`);
      loaded.reload();
    });

  const toggle = (key: Key): void =>
    void action.run(async () => {
      const saved = await app.api.patch<Key>(`/keys/${encodeURIComponent(key.id)}`, { enabled: !key.enabled });
      app.notify.notice(`Token ${saved.name} ${saved.enabled ? 'enabled' : 'disabled'}.`);
      loaded.reload();
    });

  const revoke = (key: Key): void =>
    void action.run(async () => {
      await app.api.del<Key>(`/keys/${encodeURIComponent(key.id)}`);
      setConfirming(null);
      app.notify.notice(`Token ${key.name} revoked.`);
      loaded.reload();
    });

  function actions(key: Key) {
    if (key.declared) return html`<span class="muted" data-testid="declared-note">Change it in gateway.yaml</span>`;
    if (key.status === 'revoked') return null;
    if (confirming === key.id) {
      return html`
        <span class="confirm">Revoke for good?
          <button type="button" class="danger" data-testid="confirm-revoke" disabled=${action.busy} onClick=${() => revoke(key)}>Yes, revoke</button>
          <button type="button" data-testid="cancel-revoke" onClick=${() => setConfirming(null)}>No</button>
        </span>
      `;
    }
    return html`
      <span class="row-actions">
        <button type="button" data-testid="edit" onClick=${() => setPanel({ kind: 'edit', key, loaded: draftOf(key, groupOf(key)) })}>Edit</button>
        <button type="button" data-testid=${key.enabled ? 'disable' : 'enable'} disabled=${action.busy} onClick=${() => toggle(key)}>
          ${key.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" class="danger" data-testid="revoke" onClick=${() => setConfirming(key.id)}>Revoke</button>
      </span>
    `;
  }

  // What tells keys apart and whether they work comes first; the rest is the user's to show (the "Columns" menu).
  const columns: Column<Key>[] = [
    {
      id: 'name',
      title: 'Name',
      cell: (k) => (k.declared ? html`${k.name} <span class="badge" data-testid="declared" title="Declared in gateway.yaml: read-only here">gateway.yaml</span>` : k.name),
    },
    { id: 'status', title: 'Status', cell: (k) => html`<span class=${`badge status-${k.status}`}>${k.status}</span>` },
    { id: 'expires', title: 'Expires', cell: (k) => formatTime(k.expires_at, false) },
    ...(operator && app.account === '' ? [{ id: 'account', title: 'Account', cell: (k: Key) => k.account ?? '—' }] : []),
    { id: 'group', title: 'Group', choosable: 'shown', cell: (k) => k.group },
    { id: 'spend', title: 'Spend', num: true, choosable: 'shown', cell: (k) => money(k.spend) },
    {
      id: 'left',
      title: 'Left of max spend',
      num: true,
      choosable: 'shown',
      cell: (k) => {
        if (k.max_spend_left === null) return '—';
        const left = `${money(k.max_spend_left)} of ${money(k.max_spend)}`;
        // A cap that resets: this period's part, and when it turns (a lifetime cap never does).
        const period = k.max_spend_period;
        if (period === undefined || period === null) return left;
        return html`${left} <span class="muted" data-testid="max-spend-period">per ${period.period}, resets ${formatTime(period.resets_at, false)}</span>`;
      },
    },
    { id: 'limits', title: 'Limits', choosable: 'shown', cell: (k) => formatLimits(k.limits) },
    { id: 'key', title: 'Key', choosable: 'hidden', cell: (k) => html`<code>${k.prefix}…</code>` },
    { id: 'last-used', title: 'Last used', choosable: 'hidden', cell: (k) => formatTime(k.last_used_at, false) },
    { id: 'created', title: 'Created', choosable: 'hidden', cell: (k) => formatTime(k.created_at, false) },
    { id: 'actions', title: '', cell: actions },
  ];

  return html`
    <${PageFrame}
      name="tokens"
      title="Tokens"
      ready=${loaded.ready}
      loads=${loaded.loads}
      tools=${html`
        <${AccountSelect} accounts=${accounts} />
        <button type="button" class="primary" data-testid="create-token" onClick=${() => setPanel({ kind: 'create' })}>Create token</button>
      `}
    >
      ${created === null ? null : html`<${NewKey} created=${created} onDone=${() => setCreated(null)} />`}
      ${panel.kind === 'create'
        ? html`<${TokenForm}
            key="create"
            mode="create"
            initial=${emptyDraft(groups[0]?.name ?? '', operator ? app.account : '')}
            groups=${groups}
            accounts=${operator ? accounts : null}
            busy=${action.busy}
            onSubmit=${submitCreate}
            onCancel=${() => setPanel({ kind: 'none' })}
          />`
        : null}
      ${panel.kind === 'create' && groups.length === 0
        ? html`<p class="muted" data-testid="no-groups">Your account has no key groups: the operator makes this account's keys.</p>`
        : null}
      ${panel.kind === 'edit'
        ? html`<${TokenForm}
            key=${`edit-${panel.key.id}`}
            mode="edit"
            initial=${panel.loaded}
            expiresAt=${panel.key.expires_at}
            groups=${groups}
            accounts=${null}
            busy=${action.busy}
            onSubmit=${(draft: KeyDraft) => submitEdit(panel.key, panel.loaded, draft)}
            onCancel=${() => setPanel({ kind: 'none' })}
          />`
        : null}
      <${Table}
        testid="table-keys"
        columns=${columns}
        rows=${loaded.data?.data ?? []}
        rowId=${(k: Key) => k.id}
        rowClass=${(k: Key) => `status-${k.status}`}
        empty=${loaded.ready ? 'No tokens yet.' : 'Loading…'}
      />
    <//>
  `;
}
