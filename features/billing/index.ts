// A key's own money: its balance and spend (GET /v1/me), and the legacy OpenAI billing routes chat front-ends read.
// A key sees its own account only: nothing here takes an account or a key from the request.

import type { Feature } from '../../core/feature/feature.js';
import { createModelListFormat } from '../../core/formats/model-list/index.js';
import { showMe, showSubscription, showUsage } from './billing-answers.js';

export const billingFeature: Feature = {
  name: 'billing',
  routes: [
    { method: 'GET', path: '/v1/me', createFormat: createModelListFormat, chain: ['auth'], handler: showMe },
    { method: 'GET', path: '/v1/dashboard/billing/subscription', createFormat: createModelListFormat, chain: ['auth'], handler: showSubscription },
    { method: 'GET', path: '/v1/dashboard/billing/usage', createFormat: createModelListFormat, chain: ['auth'], handler: showUsage, reads: { query: ['start_date', 'end_date'] } },
  ],
};
