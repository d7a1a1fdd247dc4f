// A feature: one capability in one folder (features/<name>/): its routes with their handlers, and the plugins it
// brings. Core builds the route registry and the plugin set of a gateway from one list of features
// (features/index.ts; compose.ts here).

import type { Endpoint, WireDeclaration } from '../endpoints/registry.js';
import type { PluginFactory } from '../pipeline/plugin.js';

export interface Feature {
  /** Its folder's name. */
  readonly name: string;
  /** Its routes: method, path, format, middleware chain and handler (endpoints/registry.ts). */
  readonly routes: readonly Endpoint[];
  /** The client APIs its routes speak beyond the chat APIs, with the channel types that speak each natively. */
  readonly wires?: readonly WireDeclaration[];
  /** Plugins it brings for chains to name (`use:`), beside plugins/. */
  readonly plugins?: readonly PluginFactory[];
}
