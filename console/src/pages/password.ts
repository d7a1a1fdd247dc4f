// #/password/<token>: the page a password link opens. The password twice (they must match, 10 to 256 characters),
// then the sign-in page with a notice. The form checks these itself (noValidate) so the reason shows in the banner.
// The token is in the hash, so it never reaches a server log.

import { useState } from 'preact/hooks';
import { useApp } from '../app-context.js';
import { Field } from '../components/field.js';
import { html } from '../components/html.js';
import { PageFrame } from '../components/page.js';
import { useAction } from '../components/use-action.js';
import type { PageProps } from '../page-def.js';

const MIN = 10;
const MAX = 256;
const value = (e: Event): string => (e.currentTarget as HTMLInputElement).value;

/** Why this pair cannot be the password, or null when it can. */
export function passwordProblem(password: string, repeat: string): string | null {
  if (password.length < MIN || password.length > MAX) return `The password must be ${MIN} to ${MAX} characters long.`;
  if (password !== repeat) return 'The two passwords differ.';
  return null;
}

export function PasswordPage(props: PageProps) {
  const app = useApp();
  const action = useAction();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');

  function onSubmit(e: Event): void {
    e.preventDefault();
    void action.run(async () => {
      const problem = passwordProblem(password, repeat);
      if (problem !== null) throw new Error(problem);
      await app.api.post('/password', { token: props.params['token'] ?? '', password });
      app.go('/sign-in', 'Your password is set. Sign in with it.');
    });
  }

  return html`
    <${PageFrame} name="password" title="Set your password" ready=${true}>
      <form class="card narrow" data-testid="password-form" noValidate onSubmit=${onSubmit}>
        <${Field} label="New password" hint=${`${MIN} to ${MAX} characters.`}>
          <input
            type="password"
            data-testid="password-new"
            autocomplete="new-password"
            value=${password}
            onInput=${(e: Event) => setPassword(value(e))}
          />
        <//>
        <${Field} label="Repeat it">
          <input
            type="password"
            data-testid="password-repeat"
            autocomplete="new-password"
            value=${repeat}
            onInput=${(e: Event) => setRepeat(value(e))}
          />
        <//>
        <div class="actions">
          <button type="submit" class="primary" data-testid="password-submit" disabled=${action.busy}>Set password</button>
        </div>
      </form>
    <//>
  `;
}
