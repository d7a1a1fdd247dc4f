// The operator's accounts: list (with balances and whether disabled), create, credit with a note, disable or enable.
// A disabled account's keys are refused at once on this instance, within seconds on the others
// (core/keys/disabled-accounts.ts).

import { GatewayError, createAccount, creditAccount, describeAccount, describeEntry, type GatewayServices, type RequestContext } from '../../core/index.js';

function shown(services: GatewayServices, account: Parameters<typeof describeAccount>[0]): Record<string, unknown> {
  const groups = services.config.accounts.find((a) => a.name === account.name)?.groups ?? [];
  return Object.assign(describeAccount(account, services.config.pricing.currency), { groups });
}

export async function accountsAnswer(ctx: RequestContext, services: GatewayServices): Promise<{ status: number; body: unknown }> {
  const { ledger } = services.store;
  const method = ctx.method ?? 'GET';
  const name = ctx.params?.['name'];
  const body = ctx.request.head;
  if (name === undefined) {
    if (method === 'GET') return { status: 200, body: { object: 'list', data: (await ledger.listAccounts()).map((a) => shown(services, a)) } };
    return { status: 201, body: shown(services, await createAccount(ledger, { name: body['name'], description: body['description'] })) };
  }
  if (method === 'POST' && (ctx.path ?? ctx.route).endsWith('/credit')) {
    const credited = await creditAccount(ledger, name, { amount: body['amount'], note: body['note'], idempotency_key: body['idempotency_key'] });
    return { status: credited.applied ? 201 : 200, body: { account: shown(services, credited.account), entry: describeEntry(credited.entry), applied: credited.applied } };
  }
  if (method === 'PATCH') {
    const unknown = Object.keys(body).find((field) => field !== 'disabled');
    if (unknown !== undefined) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Unknown field "${unknown}": an account's only setting here is disabled.`, { param: unknown });
    if (typeof body['disabled'] !== 'boolean') throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'disabled must be true or false.', { param: 'disabled' });
    const account = await ledger.setAccountDisabled(name, body['disabled']);
    if (account === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${name}".`);
    // Applied here at once; the other instances read it within their refresh.
    await services.disabledAccounts.refresh();
    return { status: 200, body: shown(services, account) };
  }
  throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', 'No such console API.');
}
