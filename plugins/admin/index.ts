// admin (terminal): /admin/keys, the run-time keys: list (GET), create (POST {name, group}) and revoke (DELETE
// /admin/keys/{id}, by id or name). Its route's auth takes the operator's token (credential: admin_token).

import { GatewayError, carriesToken, createKey, describeKey, type GatewayServices, type Plugin, type PluginFactory, type RelayResult, type RequestContext } from '../../core/index.js';
import type { AdminOptions } from './options.gen.js';

export const adminPlugin: PluginFactory<AdminOptions> = {
  name: 'admin',
  create(_options, services): Plugin {
    return { name: 'admin', relay: (ctx) => answer(ctx, services) };
  },
};

async function answer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  // Its route's auth checked the token already; checked again, so that no chain (a route of gateway.yaml that
  // names this plugin behind a key's auth) can hand the keys to a key holder.
  const token = services.config.server.adminToken;
  if (token === null || !carriesToken(ctx.headers, token)) {
    throw new GatewayError('GW_ERR_ADMIN_UNAUTHORIZED', 'A valid admin token is required (Authorization: Bearer <admin_token>).');
  }
  const { store } = services;
  if (ctx.method === 'GET') return json(200, { object: 'list', data: (await store.listKeys()).map(describeKey) });
  if (ctx.method === 'POST') {
    const input = ctx.request.head;
    const created = await createKey(store, services.config, { name: input['name'], group: input['group'] });
    return json(201, Object.assign(describeKey(created.record), { key: created.key }));
  }
  const id = ctx.params?.['id'] ?? '';
  const revoked = await store.revokeKey(id, Date.now());
  if (revoked === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No key with id or name "${id}".`);
  services.keys.forget();
  return json(200, describeKey(revoked));
}

function json(status: number, value: unknown): RelayResult {
  return { kind: 'body', status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}

export default adminPlugin;
