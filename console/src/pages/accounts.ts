// #/accounts (operator): the accounts with their balances. Create one; per account: credit, debit or adjust it (the
// last two with a required note), make a user's password link, choose the groups its users make keys in, disable or
// enable it (a disabled account's keys get 401), and see its users (disable or enable one, make a new password link:
// components/account-users.ts).

import { useState } from 'preact/hooks';
import type { Account, AccountList, AccountUser, Adjusted, Credited, Debited } from '../api-types.js';
import { useApp } from '../app-context.js';
import { AccountUsers } from '../components/account-users.js';
import { CopyBox } from '../components/copy-box.js';
import { Field } from '../components/field.js';
import { formatMoney } from '../components/format-number.js';
import { formatTime } from '../components/format-time.js';
import { html } from '../components/html.js';
import { newIdempotencyKey } from '../components/idempotency-key.js';
import { PageFrame } from '../components/page.js';
import { Table, type Column } from '../components/table.js';
import { useAction } from '../components/use-action.js';
import { useFormFocus } from '../components/use-form-focus.js';
import { useLoad } from '../components/use-load.js';

/** What the operator does to a balance: each its own route and form. */
type Posting = 'credit' | 'debit' | 'adjust';

const POSTING: Readonly<Record<Posting, { readonly verb: string; readonly done: string; readonly hint: string }>> = {
  credit: { verb: 'Credit', done: 'Credited', hint: 'A decimal, such as 10.50' },
  debit: { verb: 'Debit', done: 'Debited', hint: 'A decimal taken from the balance (never below zero)' },
  adjust: { verb: 'Adjust', done: 'Adjusted', hint: 'A signed decimal, such as -2.50 or 4' },
};

/**
 * The open form. A credit's (debit's, adjustment's) idempotency key is made when its form opens and kept until it succeeds: a double
 * click, or a retry after a lost answer, sends the same key, and the server credits once.
 */
type Panel =
  | { readonly kind: 'none' }
  | { readonly kind: 'create' }
  | { readonly kind: 'groups'; readonly account: Account }
  | { readonly kind: Posting; readonly account: string; readonly idempotencyKey: string }
  | { readonly kind: 'user'; readonly account: string }
  | { readonly kind: 'users'; readonly account: string };

const value = (e: Event): string => (e.currentTarget as HTMLInputElement).value;
const path = (name: string, tail = ''): string => `/accounts/${encodeURIComponent(name)}${tail}`;

/**
 * Checkboxes of the config's groups: those the account's users make keys in. `fixed` ones (gateway.yaml's) show
 * ticked and locked: the console cannot remove them. Every group named anywhere gets a box, so nothing sent is unseen.
 */
function GroupChoice(props: {
  readonly all: readonly string[];
  readonly chosen: readonly string[];
  readonly fixed?: readonly string[];
  readonly onChange: (next: string[]) => void;
}) {
  const fixed = props.fixed ?? [];
  const shown = [...new Set([...props.all, ...fixed, ...props.chosen])];
  const flip = (group: string, on: boolean): void => props.onChange(on ? [...props.chosen, group] : props.chosen.filter((g) => g !== group));
  const box = (g: string) => {
    const locked = fixed.includes(g);
    return html`
      <label key=${g} class="check" title=${locked ? 'Set in gateway.yaml: edit it there' : undefined}>
        <input
          type="checkbox"
          data-testid="account-group"
          value=${g}
          checked=${locked || props.chosen.includes(g)}
          disabled=${locked}
          onChange=${(e: Event) => flip(g, (e.currentTarget as HTMLInputElement).checked)}
        />
        ${g}${locked ? html` <small class="hint" data-testid="account-group-file">from gateway.yaml</small>` : null}
      </label>
    `;
  };
  return html`
    <${Field} label="Groups its users make keys in" wide=${true} hint=${fixed.length === 0 ? 'None: only you make its keys' : 'Those from gateway.yaml stay: edit them there'}>
      <span class="checks">${shown.map(box)}</span>
    <//>
  `;
}

function CreateForm(props: { readonly busy: boolean; readonly groups: readonly string[]; readonly onSubmit: (name: string, description: string, groups: string[]) => void; readonly onCancel: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [groups, setGroups] = useState<string[]>([]);
  const focus = useFormFocus(props.onCancel);
  return html`
    <form class="card form-grid" data-testid="account-form" ref=${focus.ref} onKeyDown=${focus.onKeyDown} onSubmit=${(e: Event) => (e.preventDefault(), props.onSubmit(name.trim(), description.trim(), groups))}>
      <h2 class="wide">Create account</h2>
      <${Field} label="Name"><input type="text" data-testid="account-name" required value=${name} onInput=${(e: Event) => setName(value(e))} /><//>
      <${Field} label="Description"><input type="text" data-testid="account-description" value=${description} onInput=${(e: Event) => setDescription(value(e))} /><//>
      <${GroupChoice} all=${props.groups} chosen=${groups} onChange=${setGroups} />
      <div class="actions wide">
        <button type="submit" class="primary" data-testid="account-submit" disabled=${props.busy}>Create account</button>
        <button type="button" data-testid="account-cancel" onClick=${props.onCancel}>Cancel</button>
      </div>
    </form>
  `;
}

function GroupsForm(props: { readonly account: Account; readonly groups: readonly string[]; readonly busy: boolean; readonly onSubmit: (groups: string[]) => void; readonly onCancel: () => void }) {
  // The console's own choice only: a PATCH replaces those, and gateway.yaml's are added to them whatever is sent.
  const [groups, setGroups] = useState<string[]>([...props.account.console_groups]);
  const focus = useFormFocus(props.onCancel);
  return html`
    <form class="card form-grid" data-testid="groups-form" ref=${focus.ref} onKeyDown=${focus.onKeyDown} onSubmit=${(e: Event) => (e.preventDefault(), props.onSubmit(groups))}>
      <h2 class="wide">Groups of ${props.account.name}</h2>
      <${GroupChoice} all=${props.groups} chosen=${groups} fixed=${props.account.file_groups} onChange=${setGroups} />
      <div class="actions wide">
        <button type="submit" class="primary" data-testid="groups-submit" disabled=${props.busy}>Save</button>
        <button type="button" data-testid="groups-cancel" onClick=${props.onCancel}>Cancel</button>
      </div>
    </form>
  `;
}

/** A credit's, debit's or adjustment's form (data-testid `<posting>-form`, `-amount`, `-note`, `-submit`); a debit and an adjustment need a note. */
function PostingForm(props: { readonly posting: Posting; readonly account: string; readonly busy: boolean; readonly onSubmit: (amount: string, note: string) => void; readonly onCancel: () => void }) {
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const focus = useFormFocus(props.onCancel);
  const { posting } = props;
  const { verb, hint } = POSTING[posting];
  const noteRequired = posting !== 'credit';
  return html`
    <form class="card form-grid" data-testid=${`${posting}-form`} ref=${focus.ref} onKeyDown=${focus.onKeyDown} onSubmit=${(e: Event) => (e.preventDefault(), props.onSubmit(amount.trim(), note.trim()))}>
      <h2 class="wide">${verb} ${props.account}</h2>
      <${Field} label="Amount" hint=${hint}>
        <input type="text" inputmode="decimal" data-testid=${`${posting}-amount`} required value=${amount} onInput=${(e: Event) => setAmount(value(e))} />
      <//>
      <${Field} label=${noteRequired ? 'Note (required)' : 'Note'}>
        <input type="text" data-testid=${`${posting}-note`} required=${noteRequired} value=${note} onInput=${(e: Event) => setNote(value(e))} />
      <//>
      <div class="actions wide">
        <button type="submit" class="primary" data-testid=${`${posting}-submit`} disabled=${props.busy}>${verb}</button>
        <button type="button" data-testid=${`${posting}-cancel`} onClick=${props.onCancel}>Cancel</button>
      </div>
    </form>
  `;
}

function UserForm(props: { readonly account: string; readonly busy: boolean; readonly onSubmit: (name: string) => void; readonly onCancel: () => void }) {
  const [name, setName] = useState('');
  const focus = useFormFocus(props.onCancel);
  return html`
    <form class="card form-grid" data-testid="user-form" ref=${focus.ref} onKeyDown=${focus.onKeyDown} onSubmit=${(e: Event) => (e.preventDefault(), props.onSubmit(name.trim()))}>
      <h2 class="wide">Password link for a user of ${props.account}</h2>
      <${Field} label="User name" hint="A new user, or one who needs a new password">
        <input type="text" data-testid="user-name" required value=${name} onInput=${(e: Event) => setName(value(e))} />
      <//>
      <div class="actions wide">
        <button type="submit" class="primary" data-testid="user-submit" disabled=${props.busy}>Make link</button>
        <button type="button" data-testid="user-cancel" onClick=${props.onCancel}>Cancel</button>
      </div>
    </form>
  `;
}

export function AccountsPage() {
  const app = useApp();
  const action = useAction();
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [link, setLink] = useState<{ readonly user: string; readonly url: string; readonly expires: string } | null>(null);
  const loaded = useLoad(() => app.api.get<AccountList>('/accounts'), []);

  const allGroups = (app.session?.groups ?? []).map((g) => g.name);

  const create = (name: string, description: string, groups: string[]): void =>
    void action.run(async () => {
      await app.api.post<Account>('/accounts', Object.assign({ name, groups }, description === '' ? {} : { description }));
      setPanel({ kind: 'none' });
      app.notify.notice(`Account ${name} created.`);
      loaded.reload();
    });

  const post = (posting: Posting, account: string, idempotencyKey: string, amount: string, note: string): void =>
    void action.run(async () => {
      const body = note === '' ? { amount, idempotency_key: idempotencyKey } : { amount, note, idempotency_key: idempotencyKey };
      const done = await app.api.post<Credited | Debited | Adjusted>(path(account, `/${posting}`), body);
      setPanel({ kind: 'none' });
      const balance = formatMoney(done.account.balance, done.account.currency);
      const what = POSTING[posting].verb.toLowerCase();
      app.notify.notice(done.applied ? `${POSTING[posting].done} ${account}: the balance is ${balance}.` : `That ${what} was already made (nothing applied twice); the balance is ${balance}.`);
      loaded.reload();
    });

  /** A new user's link, or an existing one's new link (a password reset); from the users panel, that panel stays open. */
  const makeUser = (account: string, name: string, keepPanel = false): void =>
    void action.run(async () => {
      const made = await app.api.post<AccountUser>(path(account, '/users'), { name });
      if (!keepPanel) setPanel({ kind: 'none' });
      setLink({ user: made.user.name, url: location.origin + made.link, expires: made.link_expires_at });
    });

  const saveGroups = (account: string, groups: string[]): void =>
    void action.run(async () => {
      await app.api.patch<Account>(path(account), { groups });
      setPanel({ kind: 'none' });
      app.notify.notice(`Groups of ${account} saved.`);
      loaded.reload();
    });

  const toggle = (a: Account): void =>
    void action.run(async () => {
      const saved = await app.api.patch<Account>(path(a.name), { disabled: !a.disabled });
      app.notify.notice(`Account ${saved.name} ${saved.disabled ? 'disabled' : 'enabled'}.`);
      loaded.reload();
    });

  const open = (next: Panel): void => {
    setLink(null);
    setPanel(next);
  };

  const columns: Column<Account>[] = [
    { id: 'name', title: 'Name', cell: (a) => a.name },
    { id: 'description', title: 'Description', cell: (a) => a.description ?? '' },
    { id: 'balance', title: 'Balance', num: true, cell: (a) => formatMoney(a.balance, a.currency) },
    {
      id: 'max-spend',
      title: 'Left of max spend',
      num: true,
      cell: (a) => {
        // All its keys together; a cap that resets shows this period's part and when it turns.
        if (a.max_spend === null || a.max_spend_left === null) return '—';
        const left = `${formatMoney(a.max_spend_left, a.currency)} of ${formatMoney(a.max_spend, a.currency)}`;
        const period = a.max_spend_period;
        if (period === null) return left;
        return html`${left} <span class="muted" data-testid="account-max-spend-period">per ${period.period}, resets ${formatTime(period.resets_at, false)}</span>`;
      },
    },
    { id: 'status', title: 'Status', cell: (a) => html`<span class=${`badge status-${a.disabled ? 'disabled' : 'active'}`}>${a.disabled ? 'disabled' : 'active'}</span>` },
    { id: 'groups', title: 'Groups', cell: (a) => a.groups.join(', ') || '—' },
    { id: 'created', title: 'Created', cell: (a) => formatTime(a.created_at, false) },
    {
      id: 'actions',
      title: '',
      cell: (a) => html`
        <span class="row-actions">
          <button type="button" data-testid="credit" onClick=${() => open({ kind: 'credit', account: a.name, idempotencyKey: newIdempotencyKey() })}>Credit</button>
          <button type="button" data-testid="debit" onClick=${() => open({ kind: 'debit', account: a.name, idempotencyKey: newIdempotencyKey() })}>Debit</button>
          <button type="button" data-testid="adjust" onClick=${() => open({ kind: 'adjust', account: a.name, idempotencyKey: newIdempotencyKey() })}>Adjust</button>
          <button type="button" data-testid="groups" onClick=${() => open({ kind: 'groups', account: a })}>Groups</button>
          <button type="button" data-testid="users" onClick=${() => open({ kind: 'users', account: a.name })}>Users</button>
          <button type="button" data-testid="password-link" onClick=${() => open({ kind: 'user', account: a.name })}>Password link</button>
          <button type="button" data-testid=${a.disabled ? 'enable' : 'disable'} disabled=${action.busy} onClick=${() => toggle(a)}>${a.disabled ? 'Enable' : 'Disable'}</button>
        </span>
      `,
    },
  ];

  const cancel = (): void => setPanel({ kind: 'none' });
  return html`
    <${PageFrame}
      name="accounts"
      title="Accounts"
      ready=${loaded.ready}
      loads=${loaded.loads}
      tools=${html`<button type="button" class="primary" data-testid="create-account" onClick=${() => open({ kind: 'create' })}>Create account</button>`}
    >
      ${panel.kind === 'create' ? html`<${CreateForm} busy=${action.busy} groups=${allGroups} onSubmit=${create} onCancel=${cancel} />` : null}
      ${panel.kind === 'groups'
        ? html`<${GroupsForm}
            key=${panel.account.name}
            account=${panel.account}
            groups=${allGroups}
            busy=${action.busy}
            onSubmit=${(groups: string[]) => saveGroups(panel.account.name, groups)}
            onCancel=${cancel}
          />`
        : null}
      ${panel.kind === 'credit' || panel.kind === 'debit' || panel.kind === 'adjust'
        ? html`<${PostingForm}
            key=${panel.idempotencyKey}
            posting=${panel.kind}
            account=${panel.account}
            busy=${action.busy}
            onSubmit=${(amount: string, note: string) => post(panel.kind, panel.account, panel.idempotencyKey, amount, note)}
            onCancel=${cancel}
          />`
        : null}
      ${panel.kind === 'user'
        ? html`<${UserForm} key=${panel.account} account=${panel.account} busy=${action.busy} onSubmit=${(name: string) => makeUser(panel.account, name)} onCancel=${cancel} />`
        : null}
      ${panel.kind === 'users'
        ? html`<${AccountUsers} key=${panel.account} account=${panel.account} onLink=${(name: string) => makeUser(panel.account, name, true)} onClose=${cancel} />`
        : null}
      ${link === null
        ? null
        : html`
            <div class="card" data-testid="user-link-panel">
              <h2>Password link for ${link.user}</h2>
              <p>
                Send this link to ${link.user}: it sets their password, once, until ${formatTime(link.expires, false)} UTC.
              </p>
              <${CopyBox} testid="user-link" text=${link.url} />
              <div class="actions"><button type="button" data-testid="user-link-done" onClick=${() => setLink(null)}>Done</button></div>
            </div>
          `}
      <${Table}
        testid="table-accounts"
        columns=${columns}
        rows=${loaded.data?.data ?? []}
        rowId=${(a: Account) => a.name}
        rowClass=${(a: Account) => (a.disabled ? 'status-disabled' : '')}
        empty=${loaded.ready ? 'No accounts yet.' : 'Loading…'}
      />
    <//>
  `;
}
