// admin (terminal): the admin API, /admin/keys (keys.ts) and /admin/accounts (accounts.ts). Its route's auth takes
// the operator's token (credential: admin_token).

import { GatewayError, carriesToken, type GatewayServices, type Plugin, type PluginFactory, type RelayResult, type RequestContext } from '../../core/index.js';
import { accountsAnswer } from './accounts.js';
import { assetGroupsAnswer } from './asset-groups.js';
import { json } from './json.js';
import { keysAnswer } from './keys.js';
import type { AdminOptions } from './options.gen.js';

export const adminPlugin: PluginFactory<AdminOptions> = {
  name: 'admin',
  create(_options, services): Plugin {
    return { name: 'admin', relay: (ctx) => answer(ctx, services) };
  },
};

function answer(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  // Its route's auth checked the token already; checked again, so that no chain (a route of gateway.yaml that
  // names this plugin behind a key's auth) can hand the keys or the money to a key holder.
  const token = services.config.server.adminToken;
  if (token === null || !carriesToken(ctx.headers, token)) {
    throw new GatewayError('GW_ERR_ADMIN_UNAUTHORIZED', 'A valid admin token is required (Authorization: Bearer <admin_token>).');
  }
  if (ctx.route.includes('/admin/instances')) return instancesAnswer(services);
  if (ctx.route.includes('/admin/asset-groups')) return assetGroupsAnswer(ctx, services);
  return ctx.route.includes('/admin/accounts') ? accountsAnswer(ctx, services) : keysAnswer(ctx, services);
}

/** GET /admin/instances: the deployment's live instances (with Redis, every one whose heartbeat is recent). */
async function instancesAnswer(services: GatewayServices): Promise<RelayResult> {
  let data;
  try {
    data = await services.instances.list();
  } catch (err) {
    throw new GatewayError('GW_ERR_SHARED_STATE_UNAVAILABLE', 'Redis, where the instances register, does not answer right now; retry shortly.', { cause: err, retryAfter: 1 });
  }
  return json(200, { object: 'list', data });
}

export default adminPlugin;
