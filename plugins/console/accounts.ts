// The operator's accounts: list (with balances and whether disabled), create, credit with a note, disable or enable,
// and the groups its users make keys in.
// A disabled account's keys are refused at once on this instance, within seconds on the others
// (core/keys/disabled-accounts.ts).

import { GatewayError, createAccount, creditAccount, describeAccount, describeEntry, type GatewayServices, type RequestContext } from '../../core/index.js';
import { groupsOf, readGroups } from './account-groups.js';

function shown(services: GatewayServices, account: Parameters<typeof describeAccount>[0]): Record<string, unknown> {
  return Object.assign(describeAccount(account, services.config.pricing.currency), groupsOf(services, account.name, account.keyGroups));
}

export async function accountsAnswer(ctx: RequestContext, services: GatewayServices): Promise<{ status: number; body: unknown }> {
  const { ledger } = services.store;
  const method = ctx.method ?? 'GET';
  const name = ctx.params?.['name'];
  const body = ctx.request.head;
  if (name === undefined) {
    if (method === 'GET') return { status: 200, body: { object: 'list', data: (await ledger.listAccounts()).map((a) => shown(services, a)) } };
    const groups = body['groups'] === undefined ? [] : readGroups(services, body['groups']);
    const made = await createAccount(ledger, { name: body['name'], description: body['description'] });
    return { status: 201, body: shown(services, groups.length === 0 ? made : ((await ledger.setAccountKeyGroups(made.name, groups)) ?? made)) };
  }
  if (ctx.route === '/console/api/accounts/{name}/credit') {
    const credited = await creditAccount(ledger, name, { amount: body['amount'], note: body['note'], idempotency_key: body['idempotency_key'] });
    return {
      status: credited.applied ? 201 : 200,
      body: { account: shown(services, credited.account), entry: describeEntry(credited.entry), applied: credited.applied },
    };
  }
  if (method === 'PATCH') {
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
    return { status: 200, body: shown(services, account) };
  }
  throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', 'No such console API.');
}
