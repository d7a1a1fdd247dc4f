// A feature: one capability in one folder (features/<name>/): its routes with their handlers, its tables, its
// services and jobs, and the plugins it brings. Core builds the route registry and the plugin set of a gateway from one list of features
// (features/index.ts; compose.ts here).

import type { ChannelTypeDeclaration, Endpoint, WireDeclaration } from '../endpoints/registry.js';
import type { Service } from '../lifecycle.js';
import type { GatewayServices, PluginFactory } from '../pipeline/plugin.js';
import type { Slot } from '../slot.js';
import type { FeatureCommand } from './command.js';
import type { ConfigSection } from '../config/section.js';
import type { StorePart } from '../store/store-part.js';

export interface Feature {
  /** Its folder's name. */
  readonly name: string;
  /** Its routes: method, path, format, middleware chain and handler (endpoints/registry.ts). */
  readonly routes: readonly Endpoint[];
  /**
   * The client APIs its routes speak beyond core's, with the channel types that speak each natively; a chat API's
   * carries its translation codec.
   */
  readonly wires?: readonly WireDeclaration[];
  /** The channel types it brings (`type:` in gateway.yaml), each with its provider. */
  readonly channelTypes?: readonly ChannelTypeDeclaration[];
  /** What it keeps per config load, for its handlers and jobs (`services.feature(slot)`), in the order made. */
  readonly services?: readonly FeatureServices<unknown>[];
  /** Its keys in gateway.yaml, their schema and what they resolve to (`sectionOf(config, slot)`). */
  readonly config?: ConfigSection<unknown>;
  /** Its tables: their migrations and its access to them (`store.part(slot)`). */
  readonly store?: StorePart<unknown>;
  /** Its background work: services the lifecycle starts after the runtime and stops before it (core/lifecycle.ts). */
  readonly jobs?: (env: JobEnv) => readonly Service[];
  /** Its commands on the command line (`gateway <name> ...`). */
  readonly commands?: readonly FeatureCommand[];
  /** Plugins it brings for chains to name (`use:`), beside plugins/. */
  readonly plugins?: readonly PluginFactory[];
}

/** What a feature's background job runs against. */
export interface JobEnv {
  /** This instance's name (a lease owner's). */
  readonly instance: string;
  /** The current config load's services: a reload swaps them, so a job asks at each run. */
  readonly services: () => GatewayServices;
}

/**
 * A feature's services of one config load (an upstream pool, a table of libraries): made with the load's Gateway
 * from core's services, reached through `services.feature(slot)`, closed when the Gateway retires.
 */
export interface FeatureServices<S> {
  readonly slot: Slot<S>;
  create(core: GatewayServices): S;
  close(services: S): Promise<void>;
}
