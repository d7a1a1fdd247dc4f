// The asset library's services of one config load: a library per channel holding one (Ark's control plane, or the
// mock's in the store), closed when the load retires; and the assets' side of core's content links, for the
// features whose requests link to assets (video tasks).

import { sectionOf } from '../../core/config/section.js';
import { CONTENT_LINKS, type ContentLinks } from '../../core/feature/content-links.js';
import type { FeatureServices } from '../../core/feature/feature.js';
import { slot, type Slot } from '../../core/slot.js';
import type { Store } from '../../core/store/store.js';
import { createVolcengineLibrary } from './control-plane.js';
import { ASSET_SETTINGS } from './config.js';
import { AssetLibraries, type LibraryFactory } from './libraries.js';
import { resolveAssetLinks } from './links.js';
import { createMockAssetLibrary } from './mock-library.js';
import { ASSET_STORE } from './store-part.js';

export const ASSETS: Slot<AssetLibraries> = slot('asset libraries');

export const assetServices: FeatureServices<AssetLibraries> = {
  slot: ASSETS,
  create: (core) => new AssetLibraries(core.config.channels, sectionOf(core.config, ASSET_SETTINGS), libraryFor(core.store, core.mockClock), core.router.health, core.router.overrides),
  close: (libraries) => libraries.close(),
};

export const assetLinkServices: FeatureServices<ContentLinks> = {
  slot: CONTENT_LINKS,
  // The libraries are read at each call: both are this load's, made in the feature's order.
  create: (core) => ({
    scheme: 'asset',
    resolve: (ids, owner, signal) => resolveAssetLinks(ids, owner, { assets: core.store.part(ASSET_STORE), libraries: core.feature(ASSETS), ...(signal === undefined ? {} : { signal }) }),
  }),
  close: async () => undefined,
};

/** A channel's asset library: Volcengine's control plane, or the mock's in the store. */
function libraryFor(store: Store, mockClock: () => number): LibraryFactory {
  return (channel, control) =>
    control === undefined ? createMockAssetLibrary(store.part(ASSET_STORE).mock, channel.name, mockClock) : createVolcengineLibrary({ control, timeoutMs: control.timeoutMs });
}
