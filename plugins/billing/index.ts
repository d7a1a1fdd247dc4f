// billing (terminal): what a key may know of its own money. GET /v1/me: its name, group, account, the account's
// balance, its own spend and what is left of its max_spend (amounts as decimal strings). And the legacy OpenAI
// routes chat front-ends (NextChat, LobeChat) read to show a balance: GET /v1/dashboard/billing/subscription
// (hard_limit_usd: the balance plus all that was spent, so that limit less usage is the balance, as new-api
// answers) and GET /v1/dashboard/billing/usage?start_date=&end_date= (total_usage in cents over those days).
// A key sees its own account only: nothing here takes an account or a key from the request.

import { GatewayError, formatMoney, type AuthedKey, type GatewayServices, type Plugin, type PluginFactory, type RelayResult, type RequestContext } from '../../core/index.js';
import type { BillingOptions } from './options.gen.js';

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const billingPlugin: PluginFactory<BillingOptions> = {
  name: 'billing',
  create(_options, services): Plugin {
    return { name: 'billing', relay: (ctx) => answer(ctx, services) };
  },
};

async function answer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const key = ctx.key;
  if (key === null) throw new GatewayError('GW_ERR_AUTH_MISSING_KEY', 'An API key is required.');
  if (ctx.route.endsWith('/subscription')) return json(await subscription(key, services));
  if (ctx.route.endsWith('/usage')) return json(await usage(key, services, ctx.query));
  return json(await me(key, services));
}

/** Nano-units as a JSON number of the currency: display only (the legacy routes' shape). */
const units = (nanos: bigint): number => Number(nanos) / 1e9;

async function me(key: AuthedKey, services: GatewayServices): Promise<Record<string, unknown>> {
  const { ledger } = services.store;
  const spend = await ledger.keySpend(key.id);
  const account = key.account === undefined ? undefined : await ledger.getAccount(key.account);
  return {
    object: 'me',
    key: { name: key.name, group: key.group },
    account: key.account ?? null,
    currency: services.config.pricing.currency,
    balance: account === undefined ? null : formatMoney(account.balance),
    spend: formatMoney(spend),
    max_spend: key.maxSpend === undefined ? null : formatMoney(key.maxSpend),
    max_spend_left: key.maxSpend === undefined ? null : formatMoney(key.maxSpend > spend ? key.maxSpend - spend : 0n),
  };
}

async function subscription(key: AuthedKey, services: GatewayServices): Promise<Record<string, unknown>> {
  const { ledger } = services.store;
  let limit: bigint;
  if (key.account !== undefined) {
    const account = await ledger.getAccount(key.account);
    const spent = await services.store.costBetween({ account: key.account }, 0, Number.MAX_SAFE_INTEGER);
    limit = (account?.balance ?? 0n) + spent;
  } else {
    // An unmetered key: its own cap, if it has one; else what it spent (nothing left to show).
    limit = key.maxSpend ?? (await ledger.keySpend(key.id));
  }
  const hard = units(limit);
  return { object: 'billing_subscription', has_payment_method: key.account !== undefined, soft_limit_usd: hard, hard_limit_usd: hard, system_hard_limit_usd: hard, access_until: 0 };
}

async function usage(key: AuthedKey, services: GatewayServices, query: string): Promise<Record<string, unknown>> {
  const params = new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
  const from = day(params.get('start_date'), 'start_date') ?? 0;
  // end_date is exclusive, as OpenAI's was; absent: up to now.
  const to = day(params.get('end_date'), 'end_date') ?? Date.now() + DAY_MS;
  const who = key.account === undefined ? { keyId: key.id } : { account: key.account };
  const cost = await services.store.costBetween(who, from, to);
  return { object: 'list', total_usage: units(cost) * 100 };
}

function day(value: string | null, param: string): number | null {
  if (value === null || value === '') return null;
  const at = DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(at)) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${param} must be a date as YYYY-MM-DD.`, { param });
  return at;
}

function json(value: unknown): RelayResult {
  return { kind: 'body', status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}

export default billingPlugin;
