// A video task's money. At submission it sets aside its most (its model's `task_reserve`, else the output price of
// the tokens its resolution and duration make at most, plus `per_second` for each second asked) as holds of its own
// (owner `task:<id>`), which outlive the instance that took them: a task runs for minutes, across restarts. When it
// ends it is charged its reported usage (succeeded) or nothing, through a usage record like any request's (unique by
// the task's id, so charged once), and its holds are dropped.

import type { Ratio } from '../../core/money/decimal.js';
import { maxSpendReached } from '../../core/money/budgets.js';
import { callCost, costOf, type ModelPrice } from '../../core/money/price.js';
import { GatewayError } from '../../core/errors.js';
import type { Budget, LedgerStore } from '../../core/store/ledger-store.js';
import type { HoldDraw } from '../../core/store/store.js';
import { MAX_SECONDS, maxTaskTokens } from './video-size.js';

/** The owner of a task's holds in the store. */
export function holdOwner(taskId: string): string {
  return `task:${taskId}`;
}

/**
 * What `totalTokens` and `seconds` of video cost at `price`: Seedance reports the tokens as completion tokens; the
 * seconds are at per_second. One costOf, so the sum is rounded once.
 */
export function taskCost(price: ModelPrice, totalTokens: number, seconds: number, multiplier: Ratio): bigint {
  return costOf({ promptTokens: 0, completionTokens: totalTokens, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, seconds }, price, multiplier);
}

/** The most a task of `resolution` and `seconds` (null: auto, which may run the longest) may cost. */
export function taskReserve(price: ModelPrice, resolution: string, seconds: number | null, multiplier: Ratio): bigint {
  if (price.taskReserve !== undefined) return callCost(price.taskReserve, multiplier);
  return taskCost(price, maxTaskTokens(resolution, seconds), seconds ?? MAX_SECONDS, multiplier);
}

/**
 * Sets `amount` aside in every budget for the task, or none of it: the 402 of the first budget short (what was taken
 * of the others given back). The holds last until `expiresAt` unless the task ends first. `at.now` is the process
 * clock the holds' times are on; `at.calendarNow` the calendar clock the budgets' periods were worked out at, which
 * a periodic cap's refusal counts its wait from (retry-after until the period's end).
 */
export async function reserveForTask(
  ledger: LedgerStore,
  budgets: readonly Budget[],
  amount: bigint,
  taskId: string,
  at: { readonly now: number; readonly calendarNow: number },
  expiresAt: number,
): Promise<HoldDraw[]> {
  const { now } = at;
  const owner = holdOwner(taskId);
  const holds: HoldDraw[] = [];
  for (const budget of budgets) {
    let result;
    try {
      result = await ledger.acquireHold({ budget, min: amount, want: amount, owner, now, expiresAt });
    } catch (err) {
      await ledger.releaseHolds(owner).catch(() => undefined);
      throw new GatewayError('GW_ERR_BILLING_UNAVAILABLE', 'The gateway cannot check the balance right now; retry shortly.', { cause: err, retryAfter: 1 });
    }
    if (!result.granted) {
      await ledger.releaseHolds(owner);
      throw budget.kind === 'account'
        ? new GatewayError('GW_ERR_INSUFFICIENT_BALANCE', `The balance of account "${budget.account}" does not cover this video task. Add credit to continue.`)
        : maxSpendReached(budget, at.calendarNow, 'task');
    }
    // A periodic max_spend's hold: the task is charged to the period it was admitted in.
    holds.push(budget.kind === 'key' && budget.spendId !== undefined ? { holdId: result.holdId, amount: result.amount, spendId: budget.spendId } : { holdId: result.holdId, amount: result.amount });
  }
  return holds;
}
