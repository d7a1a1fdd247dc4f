// Whose money a key's request draws on (its account's balance, what is left of its max_spend), and the refusal of a
// model without a price for a key that has any: the same for every kind of request (quota's, a feature's task's).

import { GatewayError } from '../errors.js';
import type { AuthedKey } from '../keys/key-ring.js';
import { accountSpendRow, type Budget } from '../store/ledger-store.js';
import { periodBounds, type PeriodBounds, type SpendPeriod } from './spend-period.js';

/**
 * The key's budgets at `now` (the calendar clock); none for an unmetered key (no account, no cap). A periodic
 * max_spend is a budget of its own per period, its spend kept in a row named after the key and the period's start
 * (`<key id>@<ISO start>`): a new period starts from a row at 0 while the old one stays as it ended. Its account's
 * max_spend is one more, over all the account's keys, in rows named `account:<name>` (for life) and
 * `account:<name>@<ISO start>`; then the account's balance.
 */
export function budgetsOf(key: AuthedKey, now: number = Date.now(), bounds: (period: SpendPeriod, at: number) => PeriodBounds = periodBounds): Budget[] {
  const budgets: Budget[] = [];
  if (key.maxSpend !== undefined) {
    if (key.spendPeriod === undefined) budgets.push({ kind: 'key', keyId: key.id, maxSpend: key.maxSpend });
    else {
      const { start, end } = bounds(key.spendPeriod, now);
      budgets.push({ kind: 'key', keyId: key.id, maxSpend: key.maxSpend, spendId: `${key.id}@${new Date(start).toISOString()}`, resetsAt: end });
    }
  }
  if (key.account !== undefined && key.accountCap !== undefined) {
    const { account, accountCap: cap } = key;
    const row = accountSpendRow(account);
    if (cap.spendPeriod === undefined) budgets.push({ kind: 'key', keyId: row, maxSpend: cap.maxSpend, account });
    else {
      const { start, end } = bounds(cap.spendPeriod, now);
      budgets.push({ kind: 'key', keyId: row, maxSpend: cap.maxSpend, account, spendId: `${row}@${new Date(start).toISOString()}`, resetsAt: end });
    }
  }
  if (key.account !== undefined) budgets.push({ kind: 'account', account: key.account });
  return budgets;
}

/**
 * 402 for a key's max_spend, or its account's (the message says whose): a periodic one says when it resets (the
 * message, retry-after and x-gateway-budget-reset).
 */
export function maxSpendReached(budget: Budget, now: number, what = 'request'): GatewayError {
  const whose = budget.kind === 'key' && budget.account !== undefined ? `This API key's account "${budget.account}"` : 'This API key';
  if (budget.kind !== 'key' || budget.resetsAt === undefined) {
    return new GatewayError('GW_ERR_MAX_SPEND_REACHED', `${whose} has reached its spending limit (max_spend). Ask for a higher limit or use another key.`);
  }
  const reset = new Date(budget.resetsAt).toISOString();
  return new GatewayError('GW_ERR_MAX_SPEND_REACHED', `${whose} has reached its spending limit (max_spend) for the current period; it resets at ${reset}. This ${what} was not served.`, {
    retryAfter: Math.max(1, Math.ceil((budget.resetsAt - now) / 1000)),
    resetsAt: budget.resetsAt,
  });
}

export function modelNotPriced(model: string): GatewayError {
  return new GatewayError('GW_ERR_MODEL_NOT_PRICED', `Model "${model}" has no price, so keys billed to an account cannot use it.`, { param: 'model' });
}
