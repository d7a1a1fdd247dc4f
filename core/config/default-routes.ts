// The plugin chain each known route gets when gateway.yaml does not write it out.

import type { Route } from './gateway.gen.js';
import type { ResolvedRoute } from './resolved.js';
import { DEFAULT_MARK } from './source-lines.js';

/** Every path the schema allows, with its built-in chain; typed by the schema so a new path needs a chain here. */
export const DEFAULT_CHAINS: Readonly<Record<Route['path'], readonly string[]>> = {
  '/v1/chat/completions': ['auth', 'meter', 'relay'],
  '/v1/messages': ['auth', 'meter', 'relay'],
  // Not billed, but metered: the record shows who counted what, and the request counts in the metrics.
  '/v1/messages/count_tokens': ['auth', 'meter', 'relay'],
  '/v1/responses': ['auth', 'meter', 'relay'],
  '/v1/responses/compact': ['auth', 'meter', 'relay'],
};

/** The built-in route for each known path not in `written`, in DEFAULT_CHAINS order. */
export function defaultRoutesExcept(written: ReadonlySet<string>): ResolvedRoute[] {
  return Object.entries(DEFAULT_CHAINS)
    .filter(([path]) => !written.has(path))
    .map(([path, chain]) => ({
      path,
      plugins: chain.map((use) => ({ use, with: {}, path: [DEFAULT_MARK] })),
      at: [DEFAULT_MARK],
    }));
}
