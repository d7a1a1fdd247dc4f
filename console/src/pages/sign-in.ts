// #/sign-in: a name and password, or (behind a toggle) the operator's admin token. Either way the server sets the
// session cookie; the page then reads the session (the CSRF token, the groups) and goes back to the page the session
// ended on (?next=), or to the dashboard.

import { useState } from 'preact/hooks';
import type { Session } from '../api-types.js';
import { useApp } from '../app-context.js';
import { Field } from '../components/field.js';
import { html } from '../components/html.js';
import { PageFrame } from '../components/page.js';
import { useAction } from '../components/use-action.js';
import type { PageProps } from '../page-def.js';
import { returnPath } from '../return-path.js';

const value = (e: Event): string => (e.currentTarget as HTMLInputElement).value;

export function SignInPage(props: PageProps) {
  const app = useApp();
  const action = useAction();
  const [withToken, setWithToken] = useState(false);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');

  function onSubmit(e: Event): void {
    e.preventDefault();
    void action.run(async () => {
      const body = withToken ? { admin_token: token } : { name: name.trim(), password };
      const signed = await app.api.post<Session>('/session', body);
      app.api.setSession(signed);
      setPassword('');
      setToken('');
      if ((await app.loadSession()) !== null) app.go(returnPath(props.query.get('next')));
    });
  }

  return html`
    <${PageFrame} name="sign-in" title="Sign in" ready=${true}>
      <form class="card narrow" data-testid="sign-in-form" onSubmit=${onSubmit}>
        ${withToken
          ? html`
              <${Field} label="Admin token">
                <input type="password" data-testid="sign-in-admin-token" autocomplete="off" required value=${token} onInput=${(e: Event) => setToken(value(e))} />
              <//>
            `
          : html`
              <${Field} label="Name">
                <input type="text" data-testid="sign-in-name" autocomplete="username" required value=${name} onInput=${(e: Event) => setName(value(e))} />
              <//>
              <${Field} label="Password">
                <input
                  type="password"
                  data-testid="sign-in-password"
                  autocomplete="current-password"
                  required
                  value=${password}
                  onInput=${(e: Event) => setPassword(value(e))}
                />
              <//>
            `}
        <label class="check">
          <input type="checkbox" data-testid="sign-in-admin-toggle" checked=${withToken} onChange=${() => setWithToken(!withToken)} />
          Sign in with the admin token
        </label>
        <div class="actions">
          <button type="submit" class="primary" data-testid="sign-in-submit" disabled=${action.busy}>${action.busy ? 'Signing in…' : 'Sign in'}</button>
        </div>
      </form>
    <//>
  `;
}
