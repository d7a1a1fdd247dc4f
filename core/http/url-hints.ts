// A 404 that tells the caller how to fix a base URL: doubled /v1, missing /v1, or wrong method.

import type { EndpointRegistry } from '../endpoints/registry.js';
import { GatewayError } from '../errors.js';

/** The API paths we serve and their methods, for hints: the registry's, and the model list. */
function knownPaths(endpoints: EndpointRegistry): ReadonlyMap<string, string> {
  return new Map([...endpoints.all.map((endpoint): [string, string] => [endpoint.path, endpoint.method]), ['/v1/models', 'GET']]);
}

/** GET /v1/models/{id}: one segment after /v1/models/. */
const MODEL_PATH = /^\/v1\/models\/[^/]+$/;

export function notFoundError(method: string, rawUrl: string, endpoints: EndpointRegistry): GatewayError {
  const known = knownPaths(endpoints);
  const path = rawUrl.split('?')[0] ?? rawUrl;
  const base = `Unknown request URL: ${method} ${path}.`;
  if (path.startsWith('/v1/v1/')) {
    return new GatewayError(
      'GW_ERR_ROUTE_NOT_FOUND',
      `${base} The path has /v1 twice: your base URL already ends in /v1 and the client adds another. ` +
        'Remove the trailing /v1 from the base URL (Anthropic clients such as Claude Code take the gateway root).',
    );
  }
  const withV1 = `/v1${path}`;
  // Hint only at a path that exists: "did you mean /v1/images/generations?" would send the caller to another 404.
  if (known.has(withV1) || MODEL_PATH.test(withV1)) {
    return new GatewayError(
      'GW_ERR_ROUTE_NOT_FOUND',
      `${base} Did you mean ${withV1}? Add /v1 to the end of your base URL (OpenAI clients and Codex use http://HOST:PORT/v1).`,
    );
  }
  const expected = known.get(path);
  if ((path === '/v1/responses' || path.startsWith('/v1/responses/')) && method === 'GET') {
    // Stored responses are not served (the gateway sends store:false); a GET here is usually a probe of the base URL.
    return new GatewayError(
      'GW_ERR_ROUTE_NOT_FOUND',
      `${base} The gateway serves POST /v1/responses (and /v1/responses/compact) only and stores no responses. Codex and OpenAI clients use the base URL http://HOST:PORT/v1.`,
    );
  }
  if (expected !== undefined && expected !== method) {
    return new GatewayError('GW_ERR_METHOD_NOT_ALLOWED', `${base} ${path} accepts ${expected} only.`);
  }
  return new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `${base} Please check the URL: the gateway serves ${[...known.keys()].join(', ')}.`);
}
