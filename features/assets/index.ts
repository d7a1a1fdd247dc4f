// The Seedance asset library (Volcengine's eight actions under /v1/videogen/asset/), each key on its own groups and
// assets, charged per call (pricing.calls), never relayed by model; and its groups in the admin API and the console.

import { createVolcengineAssetFormat } from './format.js';
import { adminRoute, consoleRoute } from '../../core/endpoints/route-groups.js';
import type { BodyReads } from '../../core/endpoints/registry.js';
import type { Feature } from '../../core/feature/feature.js';
import { runAction } from './action.js';
import { assetLinkServices, assetServices } from './services.js';
import { assetStorePart } from './store-part.js';
import { assetsConfig } from './config.js';
import { assetsCommand } from './cli.js';
import { bindGroup, listGroups } from './admin-groups.js';
import { bindConsoleGroup, listConsoleGroups } from './console-groups.js';

const ASSET_READS: BodyReads = { names: ['Id', 'GroupId', 'Name', 'URL', 'ProjectName', 'Filter.Name', 'Filter.GroupIds.*'], texts: ['Description'] };
const BIND_READS: BodyReads = { names: ['key'] };

export const assetsFeature: Feature = {
  name: 'assets',
  // Its own API, never relayed: the channels with `assets: true` hold the libraries.
  wires: [{ name: 'volcengine-asset', native: [] }],
  // Its libraries per load, and the links other features' requests make to its assets (core/feature/content-links.ts).
  services: [assetServices, assetLinkServices],
  store: assetStorePart,
  config: assetsConfig,
  commands: [assetsCommand],
  routes: [
    // Eight actions by name (any other is a 404 in its envelope).
    {
      method: 'POST',
      path: '/v1/videogen/asset/{action}',
      wire: 'volcengine-asset',
      createFormat: createVolcengineAssetFormat,
      chain: ['auth', 'rate-limit', 'quota', 'meter'],
      handler: runAction,
      reads: ASSET_READS,
    },
    adminRoute('GET', '/admin/asset-groups', listGroups, { query: ['offset', 'key', 'account'] }),
    adminRoute('POST', '/admin/asset-groups/{id}/bind', bindGroup, BIND_READS),
    consoleRoute('GET', '/console/api/asset-groups', listConsoleGroups, 'user', { query: ['offset', 'account'] }),
    consoleRoute('POST', '/console/api/asset-groups/{id}/bind', bindConsoleGroup, 'operator', BIND_READS),
  ],
};
