// Request detail: one request's trace (its attempts, times, tokens, prices, cost and ledger charge) and the requests a
// ledger charge covers, for the console's usage log, ledger and request search (console/page.ts).

import { consoleRoute } from '../../core/endpoints/route-groups.js';
import type { Feature } from '../../core/feature/feature.js';
import { showChargeRequests } from './charge-requests.js';
import { showRequest } from './request-detail.js';

export const requestsFeature: Feature = {
  name: 'requests',
  routes: [
    consoleRoute('GET', '/console/api/requests/{id}', showRequest, 'user'),
    consoleRoute('GET', '/console/api/ledger/{id}/requests', showChargeRequests, 'user', { query: ['cursor', 'limit', 'account'] }),
  ],
};
