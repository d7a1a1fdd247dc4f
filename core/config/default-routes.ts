// The plugin chain each endpoint gets when gateway.yaml does not write its route out (endpoints/registry.ts).

import { routeKeyOf, type EndpointRegistry } from '../endpoints/registry.js';
import type { ResolvedRoute } from './resolved.js';
import { DEFAULT_MARK } from './source-lines.js';

/** The built-in route for each endpoint whose route key (routeKeyOf) is not in `written`, in the registry's order. */
export function defaultRoutesExcept(written: ReadonlySet<string>, endpoints: EndpointRegistry): ResolvedRoute[] {
  return endpoints.all.filter((endpoint) => !written.has(routeKeyOf(endpoint))).map((endpoint) => ({
    path: routeKeyOf(endpoint),
    plugins: endpoint.chain.map((step) =>
      typeof step === 'string' ? { use: step, with: {}, path: [DEFAULT_MARK] } : { use: step.use, with: step.with, path: [DEFAULT_MARK] },
    ),
    at: [DEFAULT_MARK],
  }));
}
