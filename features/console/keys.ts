// /console/api/keys: an account's tokens as its users manage them: list, create (the key shown once), edit and
// revoke. A user reaches only their own account's keys; any other id is answered as a missing one (no existence
// leak). The operator reaches every key (?account= narrows the list). The list also shows the keys declared in
// gateway.yaml, read-only (declared-keys.ts). The checks are the admin API's (core/keys/key-admin.ts), and a user's
// limits are at most the key's group's.

import { GatewayError } from '../../core/errors.js';
import { createKey, describeKey, updateKey } from '../../core/keys/key-admin.js';
import { parseIsoTime } from '../../core/iso-time.js';
import { formatMoney } from '../../core/money/decimal.js';
import { currentSpendPeriod as currentKeyPeriod, describeSpendPeriod } from '../../core/money/period-spend.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { consoleJson } from '../../core/console/console-answer.js';
import { sessionOf } from '../../core/console/session-slot.js';
import type { StoredKey } from '../../core/store/store.js';
import { keyGroupsOf } from './account-groups.js';
import { currentSpendPeriod, declaredKeyId, declaredKeysOf, describeDeclared, refuseDeclared } from './declared-keys.js';

type Signed = { readonly account: string | null };

/**
 * The keys an account's users may make, revoked ones included (the listing shows those too, and each is a row it
 * reads): a create-and-revoke loop cannot grow it without bound. The operator may make more.
 */
const MAX_KEYS = 500;

/** The key `id` names if this user may reach it; else the 404 a missing key gets. */
async function reachable(services: GatewayServices, user: Signed, id: string): Promise<StoredKey> {
  const key = (await services.store.listKeys()).find((k) => k.id === id);
  if (key === undefined || (user.account !== null && key.account !== user.account)) {
    throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No key with id "${id}".`);
  }
  return key;
}

/** What a key is now, as its list shows it. */
function statusOf(key: StoredKey, now: number): string {
  if (key.revokedAt !== null) return 'revoked';
  if (key.disabled === true) return 'disabled';
  if (key.expiresAt !== undefined && key.expiresAt <= now) return 'expired';
  return 'active';
}

/**
 * Keys as the console lists them: the admin API's shape plus status, last use, spend and what is left of max_spend;
 * then the `declared` ones of gateway.yaml (read from the same two queries).
 */
async function shown(services: GatewayServices, keys: readonly StoredKey[], declared: ReturnType<typeof declaredKeysOf> = []): Promise<Record<string, unknown>[]> {
  const ids = keys.map((k) => k.id).concat(declared.map(declaredKeyId));
  // A periodic max_spend's current period: its spend row is read in the same query as the lifetime ones.
  const periods = declared.map((key) => currentSpendPeriod(key, services.clock()));
  const ownPeriods = keys.map((key) => currentKeyPeriod(key, services.clock()));
  const spendIds = ids.concat([...periods, ...ownPeriods].flatMap((p) => (p === null ? [] : [p.spendId])));
  const [used, spends] = await Promise.all([services.store.lastUsed(ids), services.store.ledger.keySpends(spendIds)]);
  const now = Date.now();
  const fromFile = declared.map((key, i) => {
    const period = periods[i] ?? null;
    return describeDeclared(key, spends.get(declaredKeyId(key)) ?? 0n, used.get(declaredKeyId(key)), period === null ? undefined : { spent: spends.get(period.spendId) ?? 0n, resetsAt: period.resetsAt });
  });
  return keys.map((key, i): Record<string, unknown> => {
    const spent = spends.get(key.id) ?? 0n;
    const last = used.get(key.id);
    // A max_spend per period: what is left of the current period, and its spend and end.
    const period = ownPeriods[i] ?? null;
    const counted = period === null ? spent : (spends.get(period.spendId) ?? 0n);
    return Object.assign(describeKey(key), {
      declared: false,
      status: statusOf(key, now),
      last_used_at: last === undefined ? null : new Date(last).toISOString(),
      spend: formatMoney(spent),
      max_spend_left: key.maxSpend === undefined ? null : formatMoney(key.maxSpend > counted ? key.maxSpend - counted : 0n),
    }, period === null || key.spendPeriod === undefined ? {} : { max_spend_period: describeSpendPeriod(key.spendPeriod, counted, period.resetsAt) });
  }).concat(fromFile);
}

async function shownOne(services: GatewayServices, key: StoredKey): Promise<Record<string, unknown>> {
  return (await shown(services, [key]))[0] ?? {};
}

/** A user's limits stay within the group's (the operator's may exceed them, as in gateway.yaml). */
function withinGroup(services: GatewayServices, user: Signed, group: string, limits: unknown): void {
  if (user.account === null || typeof limits !== 'object' || limits === null) return;
  const groupLimits = services.config.groups.get(group)?.limits ?? {};
  for (const [name, value] of Object.entries(limits)) {
    const cap = groupLimits[name as 'rpm' | 'tpm' | 'concurrency'];
    if (typeof value === 'number' && cap !== undefined && value > cap) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `limits.${name} may be at most the group's ${cap}.`, { param: `limits.${name}` });
    }
  }
}

/**
 * A key made or edited in the console cannot expire before now: it would be made dead (the admin API may, to test an
 * expiry). A malformed time is left to key-admin's own check and message.
 */
function refusePastExpiry(body: Readonly<Record<string, unknown>>, now = Date.now()): void {
  const text = body['expires_at'];
  const at = typeof text === 'string' ? parseIsoTime(text) : null;
  if (at !== null && at <= now) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `expires_at must be in the future (it is ${new Date(at).toISOString()}; now is ${new Date(now).toISOString()}).`, { param: 'expires_at' });
  }
}

/** GET /console/api/keys: a user's account's keys; the operator's, all or ?account='s. */
export async function listKeys(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { user } = sessionOf(ctx);
  const { store } = services;
  const account = user.account ?? new URLSearchParams(ctx.query).get('account');
  if (user.account === null && account !== null && (await store.ledger.getAccount(account)) === undefined) {
    throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${account}".`);
  }
  const keys = (await store.listKeys()).filter((k) => account === null || k.account === account);
  return consoleJson(200, { object: 'list', data: await shown(services, keys, declaredKeysOf(services, account)) });
}

/** POST /console/api/keys: the key is shown once, in this answer. */
export async function createKeyAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { user } = sessionOf(ctx);
  const { store, config } = services;
  // A copy of the body's own fields, checked and created from as one object: a "__proto__" field stays a field
  // (which createKey refuses), never the prototype of what is checked.
  const body: Record<string, unknown> = Object.fromEntries(Object.entries(ctx.request.head));
  refusePastExpiry(body);
  // A user's keys belong to their account, in the groups the operator gave it; only the operator names another
  // account (or none: unmetered) and any group.
  if (user.account !== null) {
    body['account'] = user.account;
    const allowed = await keyGroupsOf(services, user.account);
    if (typeof body['group'] !== 'string' || !allowed.includes(body['group'])) {
      const which = allowed.length === 0 ? 'none: the operator makes this account\'s keys' : allowed.join(', ');
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `group must be one of your account's groups: ${which}.`, { param: 'group' });
    }
    withinGroup(services, user, body['group'], body['limits']);
    const held = (await store.listKeys()).filter((k) => k.account === user.account).length;
    if (held >= MAX_KEYS) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Your account has ${held} keys, revoked ones included: the most it may have; ask the operator.`, { param: 'name' });
    }
  }
  const created = await createKey(store, config, Object.assign(body, { group: body['group'] }));
  return consoleJson(201, Object.assign(await shownOne(services, created.record), { key: created.key }));
}

/** PATCH /console/api/keys/{id} */
export async function updateKeyAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { user } = sessionOf(ctx);
  const key = await reachableOf(ctx, services, user);
  refusePastExpiry(ctx.request.head);
  withinGroup(services, user, key.group, ctx.request.head['limits']);
  const updated = await updateKey(services.store, services.config, key.id, ctx.request.head);
  services.keys.forget(key.hash);
  return consoleJson(200, await shownOne(services, updated));
}

/** DELETE /console/api/keys/{id} */
export async function revokeKeyAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { user } = sessionOf(ctx);
  const key = await reachableOf(ctx, services, user);
  const revoked = await services.store.revokeKey(key.id, Date.now());
  services.keys.forget(key.hash);
  return consoleJson(200, await shownOne(services, revoked ?? key));
}

/** The key the route's {id} names, if this user may reach it; a declared key is refused (it is edited in gateway.yaml). */
function reachableOf(ctx: RequestContext, services: GatewayServices, user: Signed): Promise<StoredKey> {
  const id = ctx.params?.['id'] ?? '';
  refuseDeclared(services, user.account, id);
  return reachable(services, user, id);
}
