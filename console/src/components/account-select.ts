// The operator's account selector (the pages' ?account=): "All accounts" or one. The choice lives in the app, so it
// carries from page to page. A user never sees it: the server implies their own account.

import { useEffect, useState } from 'preact/hooks';
import type { Account, AccountList } from '../api-types.js';
import { useApp } from '../app-context.js';
import { html } from './html.js';

/** The accounts an operator may pick (empty for a user, whose pages never ask for them). */
export function useAccounts(): readonly Account[] {
  const app = useApp();
  const operator = app.session?.user.operator === true;
  const [accounts, setAccounts] = useState<readonly Account[]>([]);
  useEffect(() => {
    if (!operator) return;
    let live = true;
    app.api.get<AccountList>('/accounts').then(
      (list) => live && setAccounts(list.data),
      (err: unknown) => live && app.notify.error(err),
    );
    return () => void (live = false);
  }, [operator]);
  return accounts;
}

export interface AccountSelectProps {
  readonly accounts: readonly Account[];
  /** The ledger needs one account: no "All accounts" choice then. */
  readonly required?: boolean;
  /**
   * Called with the switch itself, so a page drops what meant something only for the old account (a cursor, a key
   * filter) in the same render as the new account: no load ever mixes the two.
   */
  readonly onSwitch?: (name: string) => void;
}

export function AccountSelect(props: AccountSelectProps) {
  const app = useApp();
  if (app.session?.user.operator !== true) return null;
  // The chosen account is listed even before the list arrives, so the select shows it from the first frame.
  const names = props.accounts.map((a) => a.name);
  if (app.account !== '' && !names.includes(app.account)) names.unshift(app.account);
  const switchTo = (name: string): void => {
    props.onSwitch?.(name);
    app.setAccount(name);
  };
  return html`
    <label class="account-select">
      <span class="label">Account</span>
      <select data-testid="account-select" value=${app.account} onChange=${(e: Event) => switchTo((e.currentTarget as HTMLSelectElement).value)}>
        <option value="" disabled=${props.required === true}>${props.required === true ? 'Choose an account…' : 'All accounts'}</option>
        ${names.map((name) => html`<option value=${name}>${name}</option>`)}
      </select>
    </label>
  `;
}
