// What a listing shows of a periodic max_spend (the admin API's, the console's): the current period by the calendar
// clock, the spend row it is counted in (read with the lifetime ones, in one query), and the period as shown.

import type { SpendPeriod } from '../config/resolved.js';
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
