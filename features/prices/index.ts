// Models and prices: what an account's keys may call, per group, at what price per unit (the group's multiplier
// applied), for the console's Prices page (console/page.ts).

import { consoleRoute } from '../../core/endpoints/route-groups.js';
import type { Feature } from '../../core/feature/feature.js';
import { showPrices } from './price-list.js';

export const pricesFeature: Feature = {
  name: 'prices',
  routes: [consoleRoute('GET', '/console/api/prices', showPrices, 'user', { query: ['account'] })],
};
