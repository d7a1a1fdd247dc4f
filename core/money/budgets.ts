// Whose money a key's request draws on (its account's balance, what is left of its max_spend), and the refusal of a
// model without a price for a key that has any: the same for every kind of request (quota's, a feature's task's).

import { GatewayError } from '../errors.js';
import type { AuthedKey } from '../keys/key-ring.js';
import type { Budget } from '../store/ledger-store.js';

/** The key's budgets; none for an unmetered key (no account, no cap). */
export function budgetsOf(key: AuthedKey): Budget[] {
  const budgets: Budget[] = [];
  if (key.maxSpend !== undefined) budgets.push({ kind: 'key', keyId: key.id, maxSpend: key.maxSpend });
  if (key.account !== undefined) budgets.push({ kind: 'account', account: key.account });
  return budgets;
}

export function modelNotPriced(model: string): GatewayError {
  return new GatewayError('GW_ERR_MODEL_NOT_PRICED', `Model "${model}" has no price, so keys billed to an account cannot use it.`, { param: 'model' });
}
