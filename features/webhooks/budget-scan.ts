// budget_reached for the max_spend caps: each cap compared with the spend row it counts in (a lifetime cap's, or its
// current period's by the calendar clock: `<id>@<ISO start>`), and named by that row and the cap, so it is told once
// per cap (lifetime) or once per period that reaches it. The caps: a declared key's (gateway.yaml), a run-time key's
// (the store's, for life or per period), and an account's (gateway.yaml's for an account it declares, else the one
// set at run time; rows `account:<name>` and `account:<name>@<ISO start>`), as core/money/budgets.ts builds them.

import type { ResolvedAccount, ResolvedDeclaredKey, SpendCap, SpendPeriod } from '../../core/config/resolved.js';
import { budgetsOf } from '../../core/money/budgets.js';
import { formatMoney } from '../../core/money/decimal.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { WatchedFacts } from './watched-facts.js';

/** One budget_reached to keep: the occurrence's key and the event's data. */
export interface CapReached {
  readonly key: string;
  readonly data: Record<string, unknown>;
}

/** A cap to compare: whose (the data naming it), the row it counts in, and its period when it resets. */
interface Cap {
  /** `key` or `account_max_spend`: whose max_spend, and the occurrence key's part. */
  readonly scope: 'key' | 'account_max_spend';
  readonly who: Record<string, unknown>;
  readonly row: string;
  readonly maxSpend: bigint;
  readonly period: { readonly unit: string; readonly timezone: string; readonly start: string; readonly resetsAt: number } | null;
}

/** The cap budgetsOf makes of `owner`'s max_spend at `now`: its row and, per period, the period. */
function capOf(owner: AuthedKey, spendPeriod: SpendPeriod | undefined, now: number, scope: Cap['scope'], who: Record<string, unknown>): Cap | null {
  const budget = budgetsOf(owner, now).find((b) => b.kind === 'key');
  if (budget?.kind !== 'key') return null;
  const row = budget.spendId ?? budget.keyId;
  const period = spendPeriod === undefined || budget.resetsAt === undefined ? null : { unit: spendPeriod.unit, timezone: spendPeriod.timezone, start: row.slice(row.lastIndexOf('@') + 1), resetsAt: budget.resetsAt };
  return { scope, who, row, maxSpend: budget.maxSpend, period };
}

function withCap(base: { id: string; name: string }, cap: { maxSpend: bigint; spendPeriod?: SpendPeriod }): AuthedKey {
  return Object.assign({ group: '' }, base, { maxSpend: cap.maxSpend }, cap.spendPeriod === undefined ? {} : { spendPeriod: cap.spendPeriod });
}

/** The caps reached now (`now`: the calendar clock), each with its occurrence's key. */
export async function capsReached(facts: WatchedFacts, declaredKeys: readonly ResolvedDeclaredKey[], declaredAccounts: readonly ResolvedAccount[], now: number): Promise<CapReached[]> {
  // A run-time key's lifetime cap: the store compares it (its row is the key's id).
  const atCap = (await facts.keysAtCap()).map((k) => ({ cap: { scope: 'key', who: { key_id: k.id, key_name: k.name, account: k.account }, row: k.id, maxSpend: k.maxSpend, period: null } satisfies Cap, spent: k.spent }));
  const caps: Cap[] = [];
  for (const key of declaredKeys) {
    if (key.maxSpend === undefined) continue;
    const id = `config:${key.name}`;
    const owner = withCap({ id, name: key.name }, key.spendPeriod === undefined ? { maxSpend: key.maxSpend } : { maxSpend: key.maxSpend, spendPeriod: key.spendPeriod });
    const cap = capOf(owner, key.spendPeriod, now, 'key', { key_id: id, key_name: key.name, account: key.account ?? null });
    if (cap !== null) caps.push(cap);
  }
  // A run-time key's cap per period: its current period's row.
  for (const key of await facts.keysCappedPerPeriod()) {
    const cap = capOf(withCap(key, key), key.spendPeriod, now, 'key', { key_id: key.id, key_name: key.name, account: key.account });
    if (cap !== null) caps.push(cap);
  }
  // An account's: gateway.yaml's for one it declares (even none), else the one set at run time.
  const declared = new Map(declaredAccounts.map((a) => [a.name, a.spendCap]));
  for (const account of await facts.capAccounts([...declared.keys()])) {
    const spendCap: SpendCap | undefined = declared.has(account.name) ? declared.get(account.name) : account.spendCap;
    if (spendCap === undefined) continue;
    const owner: AuthedKey = { id: '', name: '', group: '', account: account.name, accountCap: spendCap };
    const cap = capOf(owner, spendCap.spendPeriod, now, 'account_max_spend', { account: account.name });
    if (cap !== null) caps.push(cap);
  }
  const spent = await facts.spentOf(caps.map((c) => c.row));
  const told: CapReached[] = [];
  for (const { cap, spent: total } of [...atCap, ...caps.map((cap) => ({ cap, spent: spent.get(cap.row) ?? 0n }))]) {
    if (total < cap.maxSpend) continue;
    const data: Record<string, unknown> = Object.assign({ scope: cap.scope }, cap.who, { max_spend: formatMoney(cap.maxSpend), spent: formatMoney(total) });
    if (cap.period !== null) Object.assign(data, { period: cap.period.unit, timezone: cap.period.timezone, period_start: cap.period.start, resets_at: new Date(cap.period.resetsAt).toISOString() });
    // The row names the occurrence: a lifetime cap's is its owner's (a key's id, as before periods), a period's carries its start.
    const kind = cap.scope === 'key' ? 'key' : 'account_cap';
    told.push({ key: `budget_reached:${kind}:${cap.row}:${cap.maxSpend}`, data });
  }
  return told;
}
