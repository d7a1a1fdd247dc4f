// /admin/keys: the run-time keys: list (GET), create (POST {name, group, account?, max_spend?, limits?, expires_at?,
// enabled?, models?, ips?}), edit (PATCH /admin/keys/{id}: the fields given; null clears) and revoke (DELETE
// /admin/keys/{id}); {id} is a key's id or name.

import { GatewayError, createKey, describeKey, updateKey, type GatewayServices, type RelayResult, type RequestContext } from '../../core/index.js';
import { json } from './json.js';

export async function keysAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { store } = services;
  if (ctx.method === 'GET') return json(200, { object: 'list', data: (await store.listKeys()).map(describeKey) });
  if (ctx.method === 'POST') {
    const input = ctx.request.head;
    // The body's own fields as one object (a "__proto__" field stays a field, which createKey refuses).
    const body: Record<string, unknown> = Object.fromEntries(Object.entries(input));
    const created = await createKey(store, services.config, Object.assign(body, { group: body['group'] }));
    return json(201, Object.assign(describeKey(created.record), { key: created.key }));
  }
  const id = ctx.params?.['id'] ?? '';
  if (ctx.method === 'PATCH') {
    const updated = await updateKey(store, services.config, id, ctx.request.head);
    // This instance applies the edit at once; the others when their lookup cache expires (5 s).
    services.keys.forget();
    return json(200, describeKey(updated));
  }
  const revoked = await store.revokeKey(id, Date.now());
  if (revoked === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No key with id or name "${id}".`);
  services.keys.forget();
  return json(200, describeKey(revoked));
}
