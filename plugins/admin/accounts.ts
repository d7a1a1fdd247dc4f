// /admin/accounts: list (GET), create (POST {name, description?}), one with its balance and recent ledger (GET
// /admin/accounts/{name}), and credit (POST /admin/accounts/{name}/credit {amount, note?, idempotency_key}: a
// repeated idempotency key credits once, and answers 200 instead of 201).

import { GatewayError, createAccount, creditAccount, describeAccount, describeEntry, type GatewayServices, type RelayResult, type RequestContext } from '../../core/index.js';
import { json } from './json.js';

const RECENT_ENTRIES = 50;

export async function accountsAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { ledger } = services.store;
  const currency = services.config.pricing.currency;
  const name = ctx.params?.['name'];
  if (name === undefined) {
    if (ctx.method === 'GET') return json(200, { object: 'list', data: (await ledger.listAccounts()).map((a) => describeAccount(a, currency)) });
    const input = ctx.request.head;
    return json(201, describeAccount(await createAccount(ledger, { name: input['name'], description: input['description'] }), currency));
  }
  if (ctx.route.endsWith('/credit')) {
    const input = ctx.request.head;
    const credited = await creditAccount(ledger, name, { amount: input['amount'], note: input['note'], idempotency_key: input['idempotency_key'] });
    return json(credited.applied ? 201 : 200, { account: describeAccount(credited.account, currency), entry: describeEntry(credited.entry), applied: credited.applied });
  }
  const account = await ledger.getAccount(name);
  if (account === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${name}".`);
  const entries = await ledger.listLedger(name, RECENT_ENTRIES);
  return json(200, Object.assign(describeAccount(account, currency), { ledger: entries.map(describeEntry) }));
}
