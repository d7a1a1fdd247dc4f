// The client-visible model list of a config load (GET /v1/models): names as configured, globs expanded over
// what the channel's upstream listed.

import type { ResolvedChannel } from '../config/resolved.js';
import { compileGlob, isGlob } from './glob.js';

/**
 * Every channel's exact names and alias names; each glob pattern as the ids its channel's upstream listed
 * that it matches (`discovered`, by channel name), or as written when it matches none of them or the channel
 * never listed any: a pattern the caller can see says more than a model missing from the list. Sorted, once
 * each.
 */
export function buildModelList(channels: readonly ResolvedChannel[], discovered: ReadonlyMap<string, readonly string[]>): string[] {
  const names = new Set<string>();
  for (const channel of channels) {
    const ids = discovered.get(channel.name) ?? [];
    for (const pattern of channel.models.patterns) {
      if (!isGlob(pattern)) {
        names.add(pattern);
        continue;
      }
      const matches = ids.filter(compileGlob(pattern));
      if (matches.length === 0) names.add(pattern);
      for (const id of matches) names.add(id);
    }
    // An alias map names its models one by one; there is nothing to expand.
    for (const alias of channel.models.aliases.keys()) names.add(alias);
  }
  return [...names].sort();
}
