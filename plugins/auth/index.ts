// auth: who is calling, from the headers before the body is read. With a gateway key (the default), then, with the
// body, may their group call this model. With `credential: admin_token`, the operator's token (the admin API).

import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import { carriesToken } from '../../core/keys/operator-token.js';
import type { Plugin, PluginFactory, GatewayServices } from '../../core/pipeline/plugin.js';
import type { AuthOptions } from './options.gen.js';

const USES = ['access', 'config', 'consoleSignIn', 'keys'] as const;
type Uses = (typeof USES)[number];
/** What this plugin uses of the gateway's services (its factory's `uses`). */
export type Services = Pick<GatewayServices, Uses>;

export const authPlugin: PluginFactory<AuthOptions, Uses> = {
  name: 'auth',
  uses: USES,
  create(options, services): Plugin {
    return options.credential === 'admin_token' ? adminAuth(services) : keyAuth(services, options.query_key ?? null);
  },
};

/** `queryKey`: the query parameter a key may also come in (Google's `?key=`), when no header names one. */
function keyAuth(services: Services, queryKey: string | null): Plugin {
  return {
    name: 'auth',
    head(ctx) {
      // A declared or recently looked-up key is known at once: no promise, no microtask turn (key-ring.ts).
      const key = services.keys.identify(ctx.headers, queryKey === null || ctx.query === '' ? undefined : queryParam(ctx.query, queryKey));
      if (key instanceof Promise) {
        return key.then((found) => {
          admitAddress(found, ctx.clientAddress);
          ctx.key = found;
        });
      }
      admitAddress(key, ctx.clientAddress);
      ctx.key = key;
      return undefined;
    },
    request(ctx) {
      const key = ctx.key;
      const { model } = ctx.request;
      // '' is an endpoint about no one model (the model list): the key alone admits it.
      if (key === null || model === '') return;
      if (!services.access.allows(key.group, model)) {
        throw new GatewayError('GW_ERR_AUTH_MODEL_FORBIDDEN', `Your API key's group "${key.group}" does not have access to model "${model}".`, {
          param: 'model',
        });
      }
      if (key.models !== undefined && !key.models(model)) {
        throw new GatewayError('GW_ERR_AUTH_MODEL_FORBIDDEN', `Your API key "${key.name}" does not have access to model "${model}".`, { param: 'model' });
      }
    },
  };
}

/** A query parameter's value (the first), or undefined. */
function queryParam(query: string, name: string): string | undefined {
  return new URLSearchParams(query).get(name) ?? undefined;
}

/** A key with an IP allow-list is refused (403) from any other address, before its body is read. */
function admitAddress(key: AuthedKey, address: string): void {
  if (key.addresses !== undefined && !key.addresses.allows(address)) {
    throw new GatewayError('GW_ERR_AUTH_ADDRESS_FORBIDDEN', `This API key may not be used from ${address || 'this address'}.`);
  }
}

/**
 * The admin token, its wrong guesses limited per address by the console's sign-in limiter (shared by the fleet on
 * Redis): past ten, 429 whatever the token, until the bucket refills.
 */
function adminAuth(services: Services): Plugin {
  const token = services.config.server.adminToken;
  return {
    name: 'auth',
    head(ctx) {
      if (token === null) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', 'The admin API is off: set server.admin_token to enable it.');
      return services.consoleSignIn.limitAdminToken(carriesToken(ctx.headers, token), ctx.clientAddress);
    },
  };
}

export default authPlugin;
