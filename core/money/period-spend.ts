// What a listing shows of a periodic max_spend (the admin API's, the console's): the current period by the calendar
// clock, the spend row it is counted in (read with the lifetime ones, in one query), and the period as shown.

import type { ResolvedConfig, SpendCap, SpendPeriod } from '../config/resolved.js';
import type { Account, LedgerStore } from '../store/ledger-store.js';
import { budgetsOf } from './budgets.js';
import { formatMoney } from './decimal.js';

/** A key's cap as a listing has it (a stored key, a declared one). */
export interface CappedKey {
  readonly id: string;
  readonly name: string;
  readonly group: string;
  readonly maxSpend?: bigint;
  readonly spendPeriod?: SpendPeriod;
}

/** The current period of a periodic max_spend: its spend row and when it ends; null for a lifetime cap or none. */
export function currentSpendPeriod(key: CappedKey, now: number): { readonly spendId: string; readonly resetsAt: number } | null {
  const capped: CappedKey = { id: key.id, name: key.name, group: key.group };
  const budget = budgetsOf(Object.assign(capped, key.maxSpend === undefined ? {} : { maxSpend: key.maxSpend }, key.spendPeriod === undefined ? {} : { spendPeriod: key.spendPeriod }), now).find(
    (b) => b.kind === 'key',
  );
  return budget?.kind === 'key' && budget.spendId !== undefined && budget.resetsAt !== undefined ? { spendId: budget.spendId, resetsAt: budget.resetsAt } : null;
}

/** `max_spend_period` as listed: the period, its zone, its spend so far and its end. */
export function describeSpendPeriod(period: SpendPeriod, spent: bigint, resetsAt: number): Record<string, unknown> {
  return { period: period.unit, timezone: period.timezone, spend: formatMoney(spent), resets_at: new Date(resetsAt).toISOString() };
}

/** An account's max_spend in force: gateway.yaml's for an account it declares, else the one set at run time. */
export function accountCapOf(account: Account, config: Pick<ResolvedConfig, 'accounts'>): SpendCap | undefined {
  const declared = config.accounts.find((a) => a.name === account.name);
  return declared === undefined ? account.spendCap : declared.spendCap;
}

/**
 * Each account's max_spend as listed (one query for all): `max_spend` (null: none), `max_spend_left` (of the current
 * period for a cap per period) and `max_spend_period` ({period, timezone, spend, resets_at}; null for a lifetime cap).
 */
export async function accountCapFields(
  ledger: LedgerStore,
  accounts: readonly { readonly name: string; readonly cap: SpendCap | undefined }[],
  now: number,
): Promise<Map<string, Record<string, unknown>>> {
  // The budget budgetsOf makes of the cap, as a key of the account would draw on it: its row, and its period's end.
  const budgets = accounts.map(({ name, cap }) => {
    if (cap === undefined) return null;
    const budget = budgetsOf({ id: '', name: '', group: '', account: name, accountCap: cap }, now).find((b) => b.kind === 'key');
    return budget?.kind === 'key' ? budget : null;
  });
  const spends = await ledger.keySpends(budgets.flatMap((b) => (b === null ? [] : [b.spendId ?? b.keyId])));
  const fields = new Map<string, Record<string, unknown>>();
  for (const [i, { name, cap }] of accounts.entries()) {
    const budget = budgets[i] ?? null;
    if (cap === undefined || budget === null) {
      fields.set(name, { max_spend: null, max_spend_left: null, max_spend_period: null });
      continue;
    }
    const spent = spends.get(budget.spendId ?? budget.keyId) ?? 0n;
    fields.set(name, {
      max_spend: formatMoney(cap.maxSpend),
      max_spend_left: formatMoney(cap.maxSpend > spent ? cap.maxSpend - spent : 0n),
      max_spend_period: cap.spendPeriod === undefined || budget.resetsAt === undefined ? null : describeSpendPeriod(cap.spendPeriod, spent, budget.resetsAt),
    });
  }
  return fields;
}
