// The create/edit form of a token (an API key). Group and account are chosen at creation only (the server edits
// neither). The model allow-list ticks among the group's models, or takes typed names (a group may list only
// globs such as "gpt-*"); none at all means every model of the group. An edit sends only what changed (key-draft.ts).

import { useEffect, useState } from 'preact/hooks';
import type { Account, Group } from '../api-types.js';
import { DateInput } from './date-input.js';
import { Field } from './field.js';
import { formatTime } from './format-time.js';
import { html } from './html.js';
import { LIMIT_FIELDS, type KeyDraft } from './key-draft.js';
import { useFormFocus } from './use-form-focus.js';

export interface TokenFormProps {
  readonly mode: 'create' | 'edit';
  /** On create, its account follows the operator's account selector while the form is open. */
  readonly initial: KeyDraft;
  /** The key's own expiry on edit: the date input shows only its day, so the hint shows the time. */
  readonly expiresAt?: string | null;
  readonly groups: readonly Group[];
  /** The operator's account choices on create; null hides the field (a user's keys are their account's). */
  readonly accounts: readonly Account[] | null;
  readonly busy: boolean;
  readonly onSubmit: (draft: KeyDraft) => void;
  readonly onCancel: () => void;
}

const text = (e: Event): string => (e.currentTarget as HTMLInputElement).value;

/** The accounts to offer, the chosen one listed even before the list arrives (so the select shows it). */
function accountNames(accounts: readonly Account[], chosen: string): string[] {
  const names = accounts.map((a) => a.name);
  if (chosen !== '' && !names.includes(chosen)) names.unshift(chosen);
  return names;
}

function expiryHint(current: string | null | undefined): string {
  const rule = 'YYYY-MM-DD, after today: the key stops at that day\'s start, UTC; empty: never';
  return current === null || current === undefined ? `${rule}.` : `Now ${formatTime(current, false)} UTC (kept while the date stays). ${rule}.`;
}

export function TokenForm(props: TokenFormProps) {
  const [draft, setDraft] = useState<KeyDraft>(props.initial);
  const set = (patch: Partial<KeyDraft>): void => setDraft((d) => ({ ...d, ...patch }));
  const group = props.groups.find((g) => g.name === draft.group);
  // "*" as a box would mean the same as none ticked.
  const choices = (group?.models ?? []).filter((m) => m !== '*');
  const creating = props.mode === 'create';
  const focus = useFormFocus(props.onCancel);
  const followed = props.initial.account;
  // A new key goes to the account the pages show: switching it while the form is open switches the form's too.
  useEffect(() => {
    if (creating) set({ account: followed });
  }, [followed]);

  function toggleModel(model: string, on: boolean): void {
    set({ models: on ? [...draft.models, model] : draft.models.filter((m) => m !== model) });
  }

  function onSubmit(e: Event): void {
    e.preventDefault();
    props.onSubmit(draft);
  }

  const limitInput = (name: (typeof LIMIT_FIELDS)[number]['name'], label: string) => {
    const cap = group?.limits[name];
    return html`
      <${Field} label=${label} hint=${cap === undefined ? 'Empty: no limit of its own' : `The group's: ${cap}`}>
        <input type="text" inputmode="numeric" data-testid=${`token-${name}`} value=${draft[name]} onInput=${(e: Event) => set({ [name]: text(e) })} />
      <//>
    `;
  };

  return html`
    <form class="card form-grid" data-testid="token-form" noValidate onSubmit=${onSubmit} ref=${focus.ref} onKeyDown=${focus.onKeyDown}>
      <h2 class="wide">${creating ? 'Create token' : `Edit token ${props.initial.name}`}</h2>
      <${Field} label="Name" hint="Any text, 1 to 64 characters, no control characters (spaces at either end are dropped)">
        <input type="text" data-testid="token-name" required value=${draft.name} onInput=${(e: Event) => set({ name: text(e) })} />
      <//>
      ${creating && props.accounts !== null
        ? html`
            <${Field} label="Account">
              <select data-testid="token-account" value=${draft.account} onChange=${(e: Event) => set({ account: text(e) })}>
                <option value="">No account (unmetered)</option>
                ${accountNames(props.accounts, draft.account).map((name) => html`<option value=${name}>${name}</option>`)}
              </select>
            <//>
          `
        : null}
      ${creating
        ? html`
            <${Field} label="Group">
              <select data-testid="token-group" value=${draft.group} onChange=${(e: Event) => set({ group: text(e), models: [] })}>
                ${props.groups.map((g) => html`<option value=${g.name}>${g.name}</option>`)}
              </select>
            <//>
          `
        : html`<${Field} label="Group"><span class="static" data-testid="token-group">${draft.group}</span><//>`}
      <${Field} label="Max spend" hint="In the gateway's currency; empty: no cap">
        <input type="text" inputmode="decimal" data-testid="token-max-spend" value=${draft.maxSpend} onInput=${(e: Event) => set({ maxSpend: text(e) })} />
      <//>
      <${Field} label="Max spend resets" hint="Never: a cap on all the key's spend; else each calendar day, week (from Monday) or month">
        <select data-testid="token-spend-period" value=${draft.spendPeriod} onChange=${(e: Event) => set(text(e) === '' ? { spendPeriod: '', spendTimezone: '' } : { spendPeriod: text(e) })}>
          <option value="">Never</option>
          <option value="day">Each day</option>
          <option value="week">Each week</option>
          <option value="month">Each month</option>
        </select>
      <//>
      ${draft.spendPeriod === ''
        ? null
        : html`
            <${Field} label="Time zone" hint="An IANA name such as Europe/Berlin, whose midnight starts a period; empty: UTC">
              <input type="text" data-testid="token-spend-timezone" value=${draft.spendTimezone} onInput=${(e: Event) => set({ spendTimezone: text(e) })} />
            <//>
          `}
      <${Field} label="Expires on" hint=${expiryHint(props.expiresAt)}>
        <${DateInput} testid="token-expires" value=${draft.expires} onInput=${(expires: string) => set({ expires })} />
      <//>
      <fieldset class="wide models">
        <legend>Models</legend>
        <div class="checks">
          ${choices.map(
            (m) => html`
              <label class="check">
                <input
                  type="checkbox"
                  data-testid="token-model"
                  value=${m}
                  checked=${draft.models.includes(m)}
                  onChange=${(e: Event) => toggleModel(m, (e.currentTarget as HTMLInputElement).checked)}
                />
                ${m}
              </label>
            `,
          )}
        </div>
        <${Field} label="Other models" hint=${`Names within the group's ${(group?.models ?? []).join(', ') || 'models'}, comma separated. None ticked or typed: all of the group's.`} wide=${true}>
          <input type="text" data-testid="token-models-other" value=${draft.otherModels} onInput=${(e: Event) => set({ otherModels: text(e) })} />
        <//>
      </fieldset>
      <${Field} label="IP allow-list" hint="Addresses or CIDRs, one per line; empty: any" wide=${true}>
        <textarea rows="3" data-testid="token-ips" value=${draft.ips} onInput=${(e: Event) => set({ ips: text(e) })}></textarea>
      <//>
      ${LIMIT_FIELDS.map((f) => limitInput(f.name, f.label))}
      ${!creating ? html`<p class="hint wide">Only the fields you change are saved; an emptied field is cleared.</p>` : null}
      <div class="actions wide">
        <button type="submit" class="primary" data-testid="token-submit" disabled=${props.busy || (creating && props.groups.length === 0)}>
          ${creating ? 'Create token' : 'Save'}
        </button>
        <button type="button" data-testid="token-cancel" onClick=${props.onCancel}>Cancel</button>
      </div>
    </form>
  `;
}
