// auth: who is calling (Bearer or x-api-key), and may their group call this model.

import { GatewayError, type Plugin, type PluginFactory } from '../../core/index.js';

export const authPlugin: PluginFactory = {
  name: 'auth',
  create(_options, services): Plugin {
    return {
      name: 'auth',
      async request(ctx) {
        const key = await services.keys.identify(ctx.headers);
        ctx.key = key;
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
