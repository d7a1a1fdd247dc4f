// The operator's accounts: list (with balances and whether disabled), create, credit, debit or adjust (with a note),
// disable or enable, and the groups its users make keys in.
// A disabled account's keys are refused at once on this instance, within seconds on the others
// (core/keys/disabled-accounts.ts).

import { GatewayError } from '../../core/errors.js';
import { createAccount, describeAccount, describeEntry, postToAccount, type OperatorPosting } from '../../core/money/account-admin.js';
import { accountCapFields, accountCapOf } from '../../core/money/period-spend.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { Account } from '../../core/store/ledger-store.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { consoleJson } from '../../core/console/console-answer.js';
import { createConsoleUser } from '../../core/console/users.js';
import { requiredText } from './required-text.js';
import { groupsOf, readGroups } from './account-groups.js';

/** Accounts as the pages show them: with their groups, and their max_spend (what is left of it, and its period). */
async function shownAll(services: GatewayServices, accounts: readonly Account[]): Promise<Record<string, unknown>[]> {
  const caps = await accountCapFields(services.store.ledger, accounts.map((a) => ({ name: a.name, cap: accountCapOf(a, services.config) })), services.clock());
  return accounts.map((account) => Object.assign(describeAccount(account, services.config.pricing.currency), groupsOf(services, account.name, account.keyGroups), caps.get(account.name)));
}

async function shown(services: GatewayServices, account: Account): Promise<Record<string, unknown>> {
  return (await shownAll(services, [account]))[0] ?? {};
}

/** GET /console/api/accounts */
export async function listAccounts(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return consoleJson(200, { object: 'list', data: await shownAll(services, await services.store.ledger.listAccounts()) });
}

/** POST /console/api/accounts */
export async function createAccountAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { ledger } = services.store;
  const body = ctx.request.head;
  const groups = body['groups'] === undefined ? [] : readGroups(services, body['groups']);
  const made = await createAccount(ledger, { name: body['name'], description: body['description'] });
  return consoleJson(201, await shown(services, groups.length === 0 ? made : ((await ledger.setAccountKeyGroups(made.name, groups)) ?? made)));
}

/**
 * POST /console/api/accounts/{name}/credit, /debit and /adjust: one ledger entry each (core/money/account-admin.ts
 * postToAccount), applied once per idempotency key.
 */
export function postingAnswer(posting: OperatorPosting): (ctx: RequestContext, services: GatewayServices) => Promise<RelayResult> {
  return async function postAnswer(ctx, services) {
    const body = ctx.request.head;
    const input = { amount: body['amount'], note: body['note'], idempotency_key: body['idempotency_key'] };
    const posted = await postToAccount(services.store.ledger, ctx.params?.['name'] ?? '', posting, input);
    return consoleJson(posted.applied ? 201 : 200, { account: await shown(services, posted.account), entry: describeEntry(posted.entry), applied: posted.applied });
  };
}

/** PATCH /console/api/accounts/{name}: disabled, groups. */
export async function updateAccount(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { ledger } = services.store;
  const name = ctx.params?.['name'] ?? '';
  const body = ctx.request.head;
  const unknown = Object.keys(body).find((field) => field !== 'disabled' && field !== 'groups');
  if (unknown !== undefined) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Unknown field "${unknown}": an account's settings here are disabled and groups.`, { param: unknown });
  }
  const disabled = body['disabled'];
  if (disabled !== undefined && typeof disabled !== 'boolean') {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'disabled must be true or false.', { param: 'disabled' });
  }
  // Checked whole before anything is written: a bad field changes nothing.
  const groups = body['groups'] === undefined ? undefined : readGroups(services, body['groups']);
  if ((await ledger.getAccount(name)) === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${name}".`);
  if (groups !== undefined) await ledger.setAccountKeyGroups(name, groups);
  if (disabled !== undefined) {
    await ledger.setAccountDisabled(name, disabled);
    // Applied here at once; the other instances read it within their refresh (and so does this one, should this read fail).
    await services.disabledAccounts
      .refresh()
      .catch((err: unknown) => services.logger.warn({ err }, 'reading the disabled accounts failed; retried within 5 s'));
  }
  const account = await ledger.getAccount(name);
  if (account === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${name}".`);
  return consoleJson(200, await shown(services, account));
}

/** POST /console/api/accounts/{name}/users: a user of the account, with a one-time link to set its password. */
export async function createUser(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const account = ctx.params?.['name'] ?? '';
  if ((await services.store.ledger.getAccount(account)) === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${account}".`);
  return consoleJson(201, await createConsoleUser(services.store.console, services.consoleSignIn, requiredText(ctx.request.head['name'], 'name'), account));
}
