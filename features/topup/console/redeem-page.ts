// #/redeem: a user of an account types a top-up code and redeems it into the account; the new balance is shown once
// it is credited. The operator has no balance, so the page only says who redeems.

import { useState } from 'preact/hooks';
import type { ConsoleTopupRedeemed as Redeemed } from '../../../console/src/api-types.gen.js';
import { useApp } from '../../../console/src/app-context.js';
import { Field } from '../../../console/src/components/field.js';
import { formatMoney } from '../../../console/src/components/format-number.js';
import { html } from '../../../console/src/components/html.js';
import { PageFrame } from '../../../console/src/components/page.js';
import { useAction } from '../../../console/src/components/use-action.js';
import type { PageDef } from '../../../console/src/page-def.js';

export function RedeemPage() {
  const app = useApp();
  const action = useAction();
  const [code, setCode] = useState('');
  const [done, setDone] = useState<Redeemed | null>(null);
  const operator = app.session?.user.operator === true;

  const redeem = (): void =>
    void action.run(async () => {
      const redeemed = await app.api.post<Redeemed>('/topup/redeem', { code: code.trim() });
      setDone(redeemed);
      setCode('');
      app.notify.notice(`Redeemed ${redeemed.code.masked}: ${formatMoney(redeemed.code.amount, redeemed.code.currency)} added.`);
    });

  return html`
    <${PageFrame} name="redeem" title="Redeem a code" ready=${true}>
      ${operator
        ? html`<p class="hint" data-testid="redeem-operator">Top-up codes are redeemed by the users of an account, into its balance. Make codes on the Top-up codes page.</p>`
        : html`
            <form class="card form-grid" data-testid="redeem-form" onSubmit=${(e: Event) => (e.preventDefault(), code.trim() !== '' && redeem())}>
              <${Field} label="Top-up code" wide=${true} hint="As you were given it, such as TOPUP-XXXXX-XXXXX-XXXXX-XXXXX-XXXXXX">
                <input
                  type="text"
                  data-testid="redeem-code"
                  autocomplete="off"
                  spellcheck=${false}
                  required
                  value=${code}
                  onInput=${(e: Event) => setCode((e.currentTarget as HTMLInputElement).value)}
                />
              <//>
              <div class="actions wide">
                <button type="submit" class="primary" data-testid="redeem-submit" disabled=${action.busy}>Redeem</button>
              </div>
            </form>
          `}
      ${done === null
        ? null
        : html`
            <div class="card" data-testid="redeem-done">
              <h2>Credited</h2>
              <p>
                <span data-testid="redeem-amount">${formatMoney(done.code.amount, done.code.currency)}</span> from code
                <code data-testid="redeem-masked">${done.code.masked}</code> went into ${done.account.name}.
              </p>
              <p>The balance is now <strong data-testid="redeem-balance">${formatMoney(done.account.balance, done.account.currency)}</strong>.</p>
            </div>
          `}
    <//>
  `;
}

export const redeemPage: PageDef = { path: '/redeem', title: 'Redeem', who: 'user', view: RedeemPage };
