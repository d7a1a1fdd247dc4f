// /admin/accounts: list, create ({name, description?}), one with its balance and recent ledger, and credit
// ({amount, note?, idempotency_key}: a repeated idempotency key credits once, and answers 200 instead of 201).

import { GatewayError } from '../../core/errors.js';
import { createAccount, creditAccount, describeAccount, describeEntry } from '../../core/money/account-admin.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import { jsonAnswer } from '../../core/pipeline/json-answer.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';

const RECENT_ENTRIES = 50;

/** GET /admin/accounts */
export async function listAccounts(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const currency = services.config.pricing.currency;
  return jsonAnswer(200, { object: 'list', data: (await services.store.ledger.listAccounts()).map((a) => describeAccount(a, currency)) });
}

/** POST /admin/accounts */
export async function createAccountAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const input = ctx.request.head;
  const created = await createAccount(services.store.ledger, { name: input['name'], description: input['description'] });
  return jsonAnswer(201, describeAccount(created, services.config.pricing.currency));
}

/** GET /admin/accounts/{name} */
export async function showAccount(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { ledger } = services.store;
  const name = ctx.params?.['name'] ?? '';
  const account = await ledger.getAccount(name);
  if (account === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${name}".`);
  const entries = await ledger.listLedger(name, RECENT_ENTRIES);
  return jsonAnswer(200, Object.assign(describeAccount(account, services.config.pricing.currency), { ledger: entries.map(describeEntry) }));
}

/** POST /admin/accounts/{name}/credit */
export async function creditAccountAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const input = ctx.request.head;
  const credited = await creditAccount(services.store.ledger, ctx.params?.['name'] ?? '', { amount: input['amount'], note: input['note'], idempotency_key: input['idempotency_key'] });
  return jsonAnswer(credited.applied ? 201 : 200, {
    account: describeAccount(credited.account, services.config.pricing.currency),
    entry: describeEntry(credited.entry),
    applied: credited.applied,
  });
}
