// What a key may know of its own money. GET /v1/me: its name, group, account, the account's
// balance, its own spend and what is left of its max_spend (amounts as decimal strings; for a max_spend per day, week or
// month, what is left of the current period, whose spend and reset time max_spend_period shows; its tokens_per_day's
// count of the day). And the legacy OpenAI
// routes chat front-ends (NextChat, LobeChat) read to show a balance: GET /v1/dashboard/billing/subscription
// (hard_limit_usd: the balance plus all that was spent, so that limit less usage is the balance, as new-api
// answers) and GET /v1/dashboard/billing/usage?start_date=&end_date= (total_usage in cents over those days).
// A key sees its own account only: nothing here takes an account or a key from the request.

import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import { LimitPlan } from '../../core/limits/limit-plan.js';
import { budgetsOf } from '../../core/money/budgets.js';
import { periodBounds } from '../../core/money/spend-period.js';
import { formatMoney } from '../../core/money/decimal.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import { jsonAnswer } from '../../core/pipeline/json-answer.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** The widest range /usage sums, as OpenAI's did. */
const MAX_DAYS = 100;

/** The caller's key (its route's auth put it there). */
function keyOf(ctx: RequestContext): AuthedKey {
  if (ctx.key === null) throw new GatewayError('GW_ERR_AUTH_MISSING_KEY', 'An API key is required.');
  return ctx.key;
}

/** GET /v1/me */
export async function showMe(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return jsonAnswer(200, await me(keyOf(ctx), services));
}

/** GET /v1/dashboard/billing/subscription */
export async function showSubscription(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return jsonAnswer(200, await subscription(keyOf(ctx), services));
}

/** GET /v1/dashboard/billing/usage */
export async function showUsage(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return jsonAnswer(200, await usage(keyOf(ctx), services, ctx.query));
}

/** Nano-units as a JSON number of the currency: display only (the legacy routes' shape). */
const units = (nanos: bigint): number => Number(nanos) / 1e9;

async function me(key: AuthedKey, services: GatewayServices): Promise<Record<string, unknown>> {
  const { ledger } = services.store;
  const spend = await ledger.keySpend(key.id);
  const account = key.account === undefined ? undefined : await ledger.getAccount(key.account);
  // A periodic max_spend: what is left is of the current period's spend, and when it resets.
  const period = await currentPeriod(key, services);
  const counted = period === null ? spend : period.spend;
  return {
    object: 'me',
    key: { name: key.name, group: key.group },
    account: key.account ?? null,
    currency: services.config.pricing.currency,
    balance: account === undefined ? null : formatMoney(account.balance),
    spend: formatMoney(spend),
    max_spend: key.maxSpend === undefined ? null : formatMoney(key.maxSpend),
    max_spend_left: key.maxSpend === undefined ? null : formatMoney(key.maxSpend > counted ? key.maxSpend - counted : 0n),
    max_spend_period:
      period === null || key.spendPeriod === undefined
        ? null
        : { period: key.spendPeriod.unit, timezone: key.spendPeriod.timezone, spend: formatMoney(period.spend), resets_at: new Date(period.resetsAt).toISOString() },
    account_max_spend: await accountCap(key, services),
    tokens_per_day: await tokensToday(key, services),
  };
}

/**
 * The account's max_spend over all its keys: the cap, what they spent of it (in all, or in the current period) and
 * what is left; with a period, which, and when it resets (null for a lifetime cap). Null when the account has none.
 */
async function accountCap(key: AuthedKey, services: GatewayServices): Promise<Record<string, unknown> | null> {
  const budget = budgetsOf(key, services.clock()).find((b) => b.kind === 'key' && b.account !== undefined);
  if (budget?.kind !== 'key') return null;
  const spent = await services.store.ledger.keySpend(budget.spendId ?? budget.keyId);
  const period = key.accountCap?.spendPeriod;
  return {
    max_spend: formatMoney(budget.maxSpend),
    spend: formatMoney(spent),
    left: formatMoney(budget.maxSpend > spent ? budget.maxSpend - spent : 0n),
    period: period?.unit ?? null,
    timezone: period?.timezone ?? null,
    resets_at: budget.resetsAt === undefined ? null : new Date(budget.resetsAt).toISOString(),
  };
}

/** The key's tokens_per_day (its own or its group's): the day's count so far, what is left and when the day ends; null without one. */
async function tokensToday(key: AuthedKey, services: GatewayServices): Promise<Record<string, unknown> | null> {
  const check = new LimitPlan(services.config).ownCheck(key);
  if (check?.tpd === undefined) return null;
  // Unknown (null) while the shared count cannot be read: a request under it waits for Redis too.
  const used = await Promise.resolve(services.limiter.usedToday(check)).catch((err: unknown) => {
    if (err instanceof GatewayError && err.code === 'GW_ERR_LIMITS_UNAVAILABLE') return null;
    throw err;
  });
  const { end } = periodBounds(check.tpd.period, services.clock());
  const { tokens, period } = check.tpd;
  return { limit: tokens, used, left: used === null ? null : Math.max(0, tokens - used), period: period.unit, timezone: period.timezone, resets_at: new Date(end).toISOString() };
}

/** The current period of a key's periodic max_spend (by the calendar clock): its spend so far and its end; null for a lifetime cap. */
async function currentPeriod(key: AuthedKey, services: GatewayServices): Promise<{ spend: bigint; resetsAt: number } | null> {
  const budget = budgetsOf(key, services.clock()).find((b) => b.kind === 'key' && b.account === undefined);
  if (budget?.kind !== 'key' || budget.spendId === undefined || budget.resetsAt === undefined) return null;
  return { spend: await services.store.ledger.keySpend(budget.spendId), resetsAt: budget.resetsAt };
}

async function subscription(key: AuthedKey, services: GatewayServices): Promise<Record<string, unknown>> {
  const { ledger } = services.store;
  let limit: bigint;
  if (key.account !== undefined) {
    // From the ledger (its charges, indexed by account), never a scan of the usage records.
    const account = await ledger.getAccount(key.account);
    limit = (account?.balance ?? 0n) + (await ledger.chargedTotal(key.account));
    // A capped key sees the smaller of its account's and its own limits.
    if (key.maxSpend !== undefined && key.maxSpend < limit) limit = key.maxSpend;
  } else {
    // An unmetered key: its own cap, if it has one; else what it spent (nothing left to show).
    limit = key.maxSpend ?? (await ledger.keySpend(key.id));
  }
  const hard = units(limit);
  return { object: 'billing_subscription', has_payment_method: key.account !== undefined, soft_limit_usd: hard, hard_limit_usd: hard, system_hard_limit_usd: hard, access_until: 0 };
}

async function usage(key: AuthedKey, services: GatewayServices, query: string): Promise<Record<string, unknown>> {
  const params = new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
  // Both dates, as OpenAI asked for them, at most MAX_DAYS apart: the sum reads the records of those days only.
  const from = day(params.get('start_date'), 'start_date');
  const to = day(params.get('end_date'), 'end_date');
  if (to <= from || to - from > MAX_DAYS * DAY_MS) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `end_date must be after start_date, at most ${MAX_DAYS} days later.`, { param: 'end_date' });
  }
  // From the hourly sums (the days are whole hours): they outlive the records that usage.retention_days prunes.
  const cost = await services.store.hourlyCost(key.account === undefined ? { from, to, keyId: key.id } : { from, to, account: key.account });
  return { object: 'list', total_usage: units(cost) * 100 };
}

function day(value: string | null, param: string): number {
  const at = value !== null && DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  // 2024-02-31 parses (as March 2nd): a date must read back as written.
  if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== value) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${param} is required, a date as YYYY-MM-DD.`, { param });
  }
  return at;
}
