// #/settings: the signed-in user's own password and sessions (reached from their name in the header). The password
// changes with the current one (10 to 256 characters, typed twice); every other session then ends, this one stays.
// The sessions list shows each open session (when it began, its last use, the address and browser it signed in from)
// and ends any but this one (sign out for that); an ended session's page is sent to the sign-in form at its next call.

import { useState } from 'preact/hooks';
import type { OwnSession, OwnSessionList, PasswordChanged } from '../api-types.js';
import { useApp } from '../app-context.js';
import { Field } from '../components/field.js';
import { formatTime } from '../components/format-time.js';
import { html } from '../components/html.js';
import { PageFrame } from '../components/page.js';
import { Table, type Column } from '../components/table.js';
import { useAction } from '../components/use-action.js';
import { useLoad } from '../components/use-load.js';
import { passwordProblem } from './password.js';

const value = (e: Event): string => (e.currentTarget as HTMLInputElement).value;

function PasswordForm(props: { readonly onChanged: (ended: number) => void }) {
  const app = useApp();
  const action = useAction();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const admin = app.session?.user.name === 'admin-token';

  function onSubmit(e: Event): void {
    e.preventDefault();
    void action.run(async () => {
      if (current === '') throw new Error('Type your current password.');
      const problem = passwordProblem(password, repeat);
      if (problem !== null) throw new Error(problem);
      const done = await app.api.post<PasswordChanged>('/password/change', { current_password: current, password });
      setCurrent('');
      setPassword('');
      setRepeat('');
      props.onChanged(done.sessions_ended);
    });
  }

  if (admin) return html`<p class="muted" data-testid="no-password">Signed in with the admin token: there is no password here (the token is set in gateway.yaml).</p>`;
  return html`
    <form class="card narrow" data-testid="change-password-form" noValidate onSubmit=${onSubmit}>
      <h2>Change your password</h2>
      <${Field} label="Current password">
        <input type="password" data-testid="current-password" autocomplete="current-password" value=${current} onInput=${(e: Event) => setCurrent(value(e))} />
      <//>
      <${Field} label="New password" hint="10 to 256 characters. Your other sessions end; this one stays.">
        <input type="password" data-testid="new-password" autocomplete="new-password" value=${password} onInput=${(e: Event) => setPassword(value(e))} />
      <//>
      <${Field} label="Repeat it">
        <input type="password" data-testid="repeat-password" autocomplete="new-password" value=${repeat} onInput=${(e: Event) => setRepeat(value(e))} />
      <//>
      <div class="actions">
        <button type="submit" class="primary" data-testid="change-password-submit" disabled=${action.busy}>Change password</button>
      </div>
    </form>
  `;
}

export function SettingsPage() {
  const app = useApp();
  const action = useAction();
  const loaded = useLoad(() => app.api.get<OwnSessionList>('/sessions'), []);

  const end = (s: OwnSession): void =>
    void action.run(async () => {
      await app.api.del(`/sessions/${encodeURIComponent(s.id)}`);
      app.notify.notice('That session ended: its browser is signed out.');
      loaded.reload();
    });

  const columns: Column<OwnSession>[] = [
    { id: 'browser', title: 'Browser', cell: (s) => html`${s.user_agent ?? html`<span class="muted">unknown</span>`}${s.current ? html` <span class="badge status-active" data-testid="current-session">this one</span>` : null}` },
    { id: 'last-seen', title: 'Last seen', cell: (s) => formatTime(s.last_seen_at, false) },
    { id: 'address', title: 'Address', cell: (s) => s.address ?? '—' },
    { id: 'created', title: 'Signed in', cell: (s) => formatTime(s.created_at, false) },
    { id: 'expires', title: 'Ends', choosable: 'hidden', cell: (s) => formatTime(s.expires_at, false) },
    {
      id: 'actions',
      title: '',
      cell: (s) => (s.current ? null : html`<span class="row-actions"><button type="button" class="danger" data-testid="end-session" disabled=${action.busy} onClick=${() => end(s)}>End</button></span>`),
    },
  ];

  const user = app.session?.user;
  return html`
    <${PageFrame} name="settings" title="Your settings" ready=${loaded.ready} loads=${loaded.loads}>
      <p class="muted">${user === undefined ? '' : user.operator ? `${user.name}, operator.` : `${user.name}, of account ${user.account ?? ''}.`}</p>
      <${PasswordForm}
        onChanged=${(ended: number) => {
          app.notify.notice(`Password changed. ${ended === 1 ? 'One other session ended' : `${ended} other sessions ended`}; this one stays.`);
          loaded.reload();
        }}
      />
      <h2>Your sessions</h2>
      <${Table}
        testid="table-sessions"
        columns=${columns}
        rows=${loaded.data?.data ?? []}
        rowId=${(s: OwnSession) => s.id}
        rowClass=${(s: OwnSession) => (s.current ? 'current' : '')}
        empty=${loaded.ready ? 'No open sessions.' : 'Loading…'}
      />
    <//>
  `;
}
