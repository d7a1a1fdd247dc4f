// /admin/accounts: list, create ({name, description?, max_spend?}), one with its balance and recent ledger, its
// max_spend set or cleared (PATCH {max_spend}: an account made at run time; a declared one's is gateway.yaml's), and
// credit ({amount, note?, idempotency_key}: a repeated idempotency key credits once, and answers 200 instead of 201).

import { GatewayError } from '../../core/errors.js';
import { createAccount, creditAccount, describeAccount, describeEntry } from '../../core/money/account-admin.js';
import { accountCapFields, accountCapOf } from '../../core/money/period-spend.js';
import { setAccountMaxSpend, spendCapOf } from '../../core/money/spend-cap-input.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import { jsonAnswer } from '../../core/pipeline/json-answer.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import type { Account } from '../../core/store/ledger-store.js';

const RECENT_ENTRIES = 50;

/** Accounts as listed: with their max_spend (gateway.yaml's for a declared one), what is left of it, and its period. */
async function described(services: GatewayServices, accounts: readonly Account[]): Promise<Record<string, unknown>[]> {
  const currency = services.config.pricing.currency;
  const caps = await accountCapFields(services.store.ledger, accounts.map((a) => ({ name: a.name, cap: accountCapOf(a, services.config) })), services.clock());
  return accounts.map((a) => Object.assign(describeAccount(a, currency), caps.get(a.name)));
}

async function describedOne(services: GatewayServices, account: Account): Promise<Record<string, unknown>> {
  return (await described(services, [account]))[0] ?? {};
}

/** GET /admin/accounts */
export async function listAccounts(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return jsonAnswer(200, { object: 'list', data: await described(services, await services.store.ledger.listAccounts()) });
}

/** POST /admin/accounts */
export async function createAccountAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const input = ctx.request.head;
  const created = await createAccount(services.store.ledger, { name: input['name'], description: input['description'] }, spendCapOf(input['max_spend']));
  return jsonAnswer(201, await describedOne(services, created));
}

/** PATCH /admin/accounts/{name}: {max_spend} (null clears it). */
export async function updateAccountAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const input = ctx.request.head;
  const unknown = Object.keys(input).find((field) => field !== 'max_spend');
  if (unknown !== undefined) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${unknown} cannot be edited here; the field is max_spend.`, { param: unknown });
  const declared = services.config.accounts.map((a) => a.name);
  const updated = await setAccountMaxSpend(services.store.ledger, declared, ctx.params?.['name'] ?? '', input['max_spend']);
  // The cap comes with each key's lookup: this instance applies it at once, the others when their cache lets go (5 s).
  services.keys.forget();
  return jsonAnswer(200, await describedOne(services, updated));
}

/** GET /admin/accounts/{name} */
export async function showAccount(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { ledger } = services.store;
  const name = ctx.params?.['name'] ?? '';
  const account = await ledger.getAccount(name);
  if (account === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${name}".`);
  const entries = await ledger.listLedger(name, RECENT_ENTRIES);
  return jsonAnswer(200, Object.assign(await describedOne(services, account), { ledger: entries.map(describeEntry) }));
}

/** POST /admin/accounts/{name}/credit */
export async function creditAccountAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const input = ctx.request.head;
  const credited = await creditAccount(services.store.ledger, ctx.params?.['name'] ?? '', { amount: input['amount'], note: input['note'], idempotency_key: input['idempotency_key'] });
  return jsonAnswer(credited.applied ? 201 : 200, {
    account: await describedOne(services, credited.account),
    entry: describeEntry(credited.entry),
    applied: credited.applied,
  });
}
