// /admin/keys: the run-time keys: list, create ({name, group, account?, max_spend?, limits?, expires_at?, enabled?,
// models?, ips?}), edit (the fields given; null clears) and revoke; {id} is a key's id or name.

import { GatewayError } from '../../core/errors.js';
import { createKey, describeKey, updateKey } from '../../core/keys/key-admin.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import { currentSpendPeriod, describeSpendPeriod } from '../../core/money/period-spend.js';
import { jsonAnswer } from '../../core/pipeline/json-answer.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import type { StoredKey } from '../../core/store/store.js';

/** Keys as listed: a max_spend per period shows the current period's spend and end (one query for all of them). */
async function described(services: GatewayServices, keys: readonly StoredKey[]): Promise<Record<string, unknown>[]> {
  const now = services.clock();
  const periods = keys.map((k) => currentSpendPeriod(k, now));
  const spends = await services.store.ledger.keySpends(periods.flatMap((p) => (p === null ? [] : [p.spendId])));
  return keys.map((key, i) => {
    const period = periods[i] ?? null;
    const shown = describeKey(key);
    if (period !== null && key.spendPeriod !== undefined) shown['max_spend_period'] = describeSpendPeriod(key.spendPeriod, spends.get(period.spendId) ?? 0n, period.resetsAt);
    return shown;
  });
}

async function describedOne(services: GatewayServices, key: StoredKey): Promise<Record<string, unknown>> {
  return (await described(services, [key]))[0] ?? {};
}

/** GET /admin/keys */
export async function listKeys(_ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return jsonAnswer(200, { object: 'list', data: await described(services, await services.store.listKeys()) });
}

/** POST /admin/keys */
export async function createKeyAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  // The body's own fields as one object (a "__proto__" field stays a field, which createKey refuses).
  const body: Record<string, unknown> = Object.fromEntries(Object.entries(ctx.request.head));
  const created = await createKey(services.store, services.config, Object.assign(body, { group: body['group'] }));
  return jsonAnswer(201, Object.assign(await describedOne(services, created.record), { key: created.key }));
}

/** PATCH /admin/keys/{id} */
export async function updateKeyAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const updated = await updateKey(services.store, services.config, ctx.params?.['id'] ?? '', ctx.request.head);
  // This instance applies the edit at once; the others when their lookup cache expires (5 s).
  services.keys.forget();
  return jsonAnswer(200, await describedOne(services, updated));
}

/** DELETE /admin/keys/{id} */
export async function revokeKeyAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const id = ctx.params?.['id'] ?? '';
  const revoked = await services.store.revokeKey(id, Date.now());
  if (revoked === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No key with id or name "${id}".`);
  services.keys.forget();
  return jsonAnswer(200, await describedOne(services, revoked));
}
