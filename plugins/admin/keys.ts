// /admin/keys: the run-time keys: list (GET), create (POST {name, group, account?, max_spend?, limits?}) and revoke (DELETE
// /admin/keys/{id}, by id or name).

import { GatewayError, createKey, describeKey, type GatewayServices, type RelayResult, type RequestContext } from '../../core/index.js';
import { json } from './json.js';

export async function keysAnswer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const { store } = services;
  if (ctx.method === 'GET') return json(200, { object: 'list', data: (await store.listKeys()).map(describeKey) });
  if (ctx.method === 'POST') {
    const input = ctx.request.head;
    const created = await createKey(store, services.config, { name: input['name'], group: input['group'], account: input['account'], max_spend: input['max_spend'], limits: input['limits'] });
    return json(201, Object.assign(describeKey(created.record), { key: created.key }));
  }
  const id = ctx.params?.['id'] ?? '';
  const revoked = await store.revokeKey(id, Date.now());
  if (revoked === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No key with id or name "${id}".`);
  services.keys.forget();
  return json(200, describeKey(revoked));
}
