// Channel control (issue 44): the operator disables or enables a channel and sets its weight from the console, beside
// the YAML values, with each channel's health. Overrides are stored (survive restarts), reach every instance within a
// second (Redis pub/sub, else store polling) and are applied by rebuilding the router's entries (core/routing/overrides.ts).

import { consoleRoute } from '../../core/endpoints/route-groups.js';
import type { Feature, FeatureServices } from '../../core/feature/feature.js';
import { clearChannelOverride, listChannelControl, putChannelOverride, resetChannelRotation } from './routes.js';
import { channelControlStorePart } from './store-part.js';
import { CHANNEL_CONTROL, channelControl, overrideSync, type ChannelControl } from './sync.js';

const control: FeatureServices<ChannelControl> = { slot: CHANNEL_CONTROL, create: channelControl, close: (made) => made.close() };

export const channelControlFeature: Feature = {
  name: 'channel-control',
  routes: [
    consoleRoute('GET', '/console/api/channel-control', listChannelControl, 'operator'),
    consoleRoute('PATCH', '/console/api/channel-control/{name}', putChannelOverride, 'operator', { names: ['disabled', 'weight'] }),
    consoleRoute('DELETE', '/console/api/channel-control/{name}', clearChannelOverride, 'operator'),
    consoleRoute('POST', '/console/api/channel-control/{name}/rotation/reset', resetChannelRotation, 'operator'),
  ],
  store: channelControlStorePart,
  services: [control],
  jobs: (env) => [overrideSync(env)],
};
