// The operator's panel of one account's console users (Accounts, "Users"): whether each may sign in, has set a
// password, how many sessions they have open and when last seen; disable one (their sessions end at once) or enable
// them again, and make a new password link (shown by the page, once).

import type { AccountUserList, AccountUserRow } from '../api-types.js';
import { useApp } from '../app-context.js';
import { formatCount } from './format-number.js';
import { formatTime } from './format-time.js';
import { html } from './html.js';
import { Table, type Column } from './table.js';
import { useAction } from './use-action.js';
import { useLoad } from './use-load.js';

export interface AccountUsersProps {
  readonly account: string;
  /** Makes a new password link for the user (the page shows it). */
  readonly onLink: (user: string) => void;
  readonly onClose: () => void;
}

function status(u: AccountUserRow) {
  if (u.disabled) return html`<span class="badge status-disabled">disabled</span>`;
  if (!u.password_set) return html`<span class="badge status-expired" title="The user has not set a password through a link yet">no password</span>`;
  return html`<span class="badge status-active">active</span>`;
}

export function AccountUsers(props: AccountUsersProps) {
  const app = useApp();
  const action = useAction();
  const path = `/accounts/${encodeURIComponent(props.account)}/users`;
  const loaded = useLoad(() => app.api.get<AccountUserList>(path), [props.account]);

  const toggle = (u: AccountUserRow): void =>
    void action.run(async () => {
      const saved = await app.api.patch<AccountUserRow>(`${path}/${encodeURIComponent(u.name)}`, { disabled: !u.disabled });
      app.notify.notice(saved.disabled ? `User ${saved.name} disabled: their sessions ended.` : `User ${saved.name} enabled.`);
      loaded.reload();
    });

  const columns: Column<AccountUserRow>[] = [
    { id: 'name', title: 'User', cell: (u) => u.name },
    { id: 'status', title: 'Status', cell: status },
    { id: 'sessions', title: 'Sessions', num: true, cell: (u) => formatCount(u.sessions) },
    { id: 'last-seen', title: 'Last seen', cell: (u) => formatTime(u.last_seen_at, false) },
    { id: 'created', title: 'Created', cell: (u) => formatTime(u.created_at, false) },
    {
      id: 'actions',
      title: '',
      cell: (u) => html`
        <span class="row-actions">
          <button type="button" data-testid=${u.disabled ? 'enable-user' : 'disable-user'} disabled=${action.busy} onClick=${() => toggle(u)}>${u.disabled ? 'Enable' : 'Disable'}</button>
          <button type="button" data-testid="user-new-link" onClick=${() => props.onLink(u.name)}>New password link</button>
        </span>
      `,
    },
  ];

  return html`
    <div class="card" data-testid="account-users" data-ready=${loaded.ready ? 'true' : 'false'}>
      <div class="card-head">
        <h2>Users of ${props.account}</h2>
        <button type="button" data-testid="account-users-close" onClick=${props.onClose}>Close</button>
      </div>
      <${Table}
        testid="table-users"
        columns=${columns}
        rows=${loaded.data?.data ?? []}
        rowId=${(u: AccountUserRow) => u.name}
        rowClass=${(u: AccountUserRow) => (u.disabled ? 'status-disabled' : '')}
        empty=${loaded.ready ? 'No users yet: make one with "Password link".' : 'Loading…'}
      />
    </div>
  `;
}
