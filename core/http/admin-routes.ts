// /admin/keys: create, list and revoke run-time keys, guarded by server.admin_token (off without one).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, toGatewayError } from '../errors.js';
import { createKey, describeKey } from '../keys/key-admin.js';
import type { Runtime } from '../runtime.js';
import { carriesToken } from './bearer-token.js';
import { refuse } from './refusal.js';
import { sendJson } from './send.js';

export type AdminAction = { kind: 'list' } | { kind: 'create'; body: Buffer | undefined } | { kind: 'revoke'; id: string };

/** Throws the 401 (or the 404 of an API that is off) unless `req` carries the admin token. */
export function checkAdminToken(runtime: Runtime, req: IncomingMessage): void {
  const token = runtime.current.config.server.adminToken;
  if (token === null) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', 'The admin API is off: set server.admin_token to enable it.');
  if (!carriesToken(req, token)) {
    throw new GatewayError('GW_ERR_ADMIN_UNAUTHORIZED', 'A valid admin token is required (Authorization: Bearer <admin_token>).');
  }
}

function parseBody(body: Buffer | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse((body ?? Buffer.alloc(0)).toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new GatewayError('GW_ERR_REQUEST_INVALID_JSON', 'The body must be a JSON object such as {"name":"ci","group":"default"}.');
}

export async function serveAdmin(runtime: Runtime, req: IncomingMessage, res: ServerResponse, action: AdminAction): Promise<void> {
  try {
    checkAdminToken(runtime, req);
    const { store } = runtime.deps;
    const gateway = runtime.current;
    if (action.kind === 'list') {
      sendJson(res, 200, { object: 'list', data: (await store.listKeys()).map(describeKey) });
    } else if (action.kind === 'create') {
      const input = parseBody(action.body);
      const created = await createKey(store, gateway.config, { name: input['name'], group: input['group'] });
      sendJson(res, 201, Object.assign(describeKey(created.record), { key: created.key }));
    } else {
      const revoked = await store.revokeKey(action.id, Date.now());
      if (revoked === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No key with id or name "${action.id}".`);
      gateway.services.keys.forget();
      sendJson(res, 200, describeKey(revoked));
    }
  } catch (err) {
    refuse(runtime, req, res, toGatewayError(err), undefined);
  }
}
