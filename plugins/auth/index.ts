// auth: who is calling (Bearer or x-api-key), and may their group call this model.

import { GatewayError, type AuthedKey, type GatewayServices, type Plugin, type PluginFactory, type RequestContext } from '../../core/index.js';

/** The key is the caller's; may its group call the requested model? */
function admit(ctx: RequestContext, key: AuthedKey, access: GatewayServices['access']): void {
  ctx.key = key;
  if (!access.allows(key.group, ctx.request.model)) {
    throw new GatewayError(
      'GW_ERR_AUTH_MODEL_FORBIDDEN',
      `Your API key's group "${key.group}" does not have access to model "${ctx.request.model}".`,
      { param: 'model' },
    );
  }
}

export const authPlugin: PluginFactory = {
  name: 'auth',
  create(_options, services): Plugin {
    return {
      name: 'auth',
      request(ctx) {
        // A declared or recently looked-up key is known at once: no promise, no microtask turn (key-ring.ts).
        const key = services.keys.identify(ctx.headers);
        if (key instanceof Promise) return key.then((found) => admit(ctx, found, services.access));
        admit(ctx, key, services.access);
        return undefined;
      },
    };
  },
};

export default authPlugin;
