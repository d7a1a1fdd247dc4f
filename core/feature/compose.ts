// A gateway's routes and plugins, from core's model routes and a list of features.

import { MODEL_ROUTES, MODEL_WIRES } from '../endpoints/model-routes.js';
import { EndpointRegistry } from '../endpoints/registry.js';
import type { PluginFactory } from '../pipeline/plugin.js';
import type { Feature } from './feature.js';
import type { StorePart } from '../store/store-part.js';

/** The model routes, then each feature's, in the list's order (a route key twice is refused by the registry). */
export function registryOf(features: readonly Feature[]): EndpointRegistry {
  return new EndpointRegistry(
    [...MODEL_ROUTES, ...features.flatMap((feature) => feature.routes)],
    [...MODEL_WIRES, ...features.flatMap((feature) => feature.wires ?? [])],
    features.flatMap((feature) => (feature.config === undefined ? [] : [feature.config])),
    features.flatMap((feature) => feature.channelTypes ?? []),
  );
}

/** `plugins` and the features' own, by `use:` name; a name twice is a mistake of the list, refused. */
export function pluginsOf(plugins: ReadonlyMap<string, PluginFactory>, features: readonly Feature[]): ReadonlyMap<string, PluginFactory> {
  const all = new Map(plugins);
  for (const feature of features) {
    for (const plugin of feature.plugins ?? []) {
      if (all.has(plugin.name)) throw new Error(`feature ${feature.name}: a plugin named "${plugin.name}" exists already`);
      all.set(plugin.name, plugin);
    }
  }
  return all;
}

/** The features' parts of the store, for openStore: every one, always (a history missing one's migrations is refused). */
export function storePartsOf(features: readonly Feature[]): readonly StorePart<unknown>[] {
  return features.flatMap((feature) => (feature.store === undefined ? [] : [feature.store]));
}
