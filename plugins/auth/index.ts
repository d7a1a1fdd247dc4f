// auth: who is calling (Bearer or x-api-key), from the headers before the body is read; then, with the body, may
// their group call this model.

import { GatewayError, type Plugin, type PluginFactory } from '../../core/index.js';
import type { AuthOptions } from './options.gen.js';

export const authPlugin: PluginFactory<AuthOptions> = {
  name: 'auth',
  create(_options, services): Plugin {
    return {
      name: 'auth',
      head(ctx) {
        // A declared or recently looked-up key is known at once: no promise, no microtask turn (key-ring.ts).
        const key = services.keys.identify(ctx.headers);
        if (key instanceof Promise) {
          return key.then((found) => {
            ctx.key = found;
          });
        }
        ctx.key = key;
        return undefined;
      },
      request(ctx) {
        const key = ctx.key;
        if (key === null) return;
        if (!services.access.allows(key.group, ctx.request.model)) {
          throw new GatewayError(
            'GW_ERR_AUTH_MODEL_FORBIDDEN',
            `Your API key's group "${key.group}" does not have access to model "${ctx.request.model}".`,
            { param: 'model' },
          );
        }
      },
    };
  },
};

export default authPlugin;
