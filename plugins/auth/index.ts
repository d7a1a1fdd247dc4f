// auth: who is calling (Bearer or x-api-key), and may their group call this model.

import { GatewayError, compileGlobs, type ModelMatcher, type Plugin, type PluginFactory } from '../../core/index.js';

export const authPlugin: PluginFactory = {
  name: 'auth',
  create(_options, services): Plugin {
    // Group globs compiled once per config load, not per request.
    const groups = new Map<string, ModelMatcher>();
    for (const [name, group] of services.config.groups) groups.set(name, compileGlobs(group.models));
    return {
      name: 'auth',
      async request(ctx) {
        const key = await services.keys.identify(ctx.headers);
        ctx.key = key;
        const allowed = groups.get(key.group);
        if (allowed === undefined || !allowed(ctx.request.model)) {
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
