// A 404 that tells the caller how to fix a base URL: doubled /v1, missing /v1, or wrong method.

import type { EndpointRegistry } from '../endpoints/registry.js';
import { GatewayError } from '../errors.js';

/** The API paths (and patterns) we serve, for hints: the registry's under /v1 (the admin API is the operator's). */
function knownPaths(endpoints: EndpointRegistry): readonly string[] {
  return [...new Set(endpoints.all.map((endpoint) => endpoint.path).filter((path) => path.startsWith('/v1/')))];
}

/** The methods served at `path` (a request's path), or [] when none is. */
function methodsAt(path: string, endpoints: EndpointRegistry): readonly string[] {
  return endpoints.at(path).map((endpoint) => endpoint.method);
}

export function notFoundError(method: string, rawUrl: string, endpoints: EndpointRegistry): GatewayError {
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
  if (methodsAt(withV1, endpoints).length > 0) {
    return new GatewayError(
      'GW_ERR_ROUTE_NOT_FOUND',
      `${base} Did you mean ${withV1}? Add /v1 to the end of your base URL (OpenAI clients and Codex use http://HOST:PORT/v1).`,
    );
  }
  const expected = methodsAt(path, endpoints);
  if ((path === '/v1/responses' || path.startsWith('/v1/responses/')) && method === 'GET') {
    // Stored responses are not served (the gateway sends store:false); a GET here is usually a probe of the base URL.
    return new GatewayError(
      'GW_ERR_ROUTE_NOT_FOUND',
      `${base} The gateway serves POST /v1/responses (and /v1/responses/compact) only and stores no responses. Codex and OpenAI clients use the base URL http://HOST:PORT/v1.`,
    );
  }
  if (expected.length > 0 && !expected.includes(method)) {
    return new GatewayError('GW_ERR_METHOD_NOT_ALLOWED', `${base} ${path} accepts ${expected.join(', ')} only.`);
  }
  return new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `${base} Please check the URL: the gateway serves ${knownPaths(endpoints).join(', ')}.`);
}
