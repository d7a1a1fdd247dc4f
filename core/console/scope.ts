// Whose records a console read covers: a user's own account, whatever they ask; the operator's ?account= (checked),
// or all.

import { GatewayError } from '../errors.js';
import type { GatewayServices } from '../pipeline/plugin.js';

export async function scopeOf(services: GatewayServices, user: { readonly account: string | null }, query: URLSearchParams): Promise<string | null> {
  if (user.account !== null) return user.account;
  const asked = query.get('account');
  if (asked === null || asked === '') return null;
  if ((await services.store.ledger.getAccount(asked)) === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${asked}".`);
  return asked;
}

/** The operator names the account of a read that covers one account at a time (`what`: "ledger to read"). */
export function requireAccount(account: string | null, what: string): string {
  if (account === null) throw new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', `Name the account whose ${what} (?account=NAME).`, { param: 'account' });
  return account;
}
