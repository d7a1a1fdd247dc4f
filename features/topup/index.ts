// Top-up codes (issue 44): the operator makes batches of single-use codes worth an amount each (their secrets shown
// once), lists, exports and disables them; a user of an account redeems one into it, a ledger credit naming the code.
// A code credits exactly once across instances (kysely-topup.ts); failed redemptions are rate-limited (redeem.ts).

import { consoleRoute } from '../../core/endpoints/route-groups.js';
import type { BodyReads } from '../../core/endpoints/registry.js';
import type { Feature } from '../../core/feature/feature.js';
import { createBatchAnswer, listBatches, updateBatch } from './batches.js';
import { exportCodes, listCodes, updateCode } from './codes.js';
import { redeemAnswer } from './redeem.js';
import { topupStorePart } from './store-part.js';

const CODES_QUERY: BodyReads = { query: ['batch', 'status', 'account', 'offset'] };

export const topupFeature: Feature = {
  name: 'topup',
  routes: [
    consoleRoute('POST', '/console/api/topup/batches', createBatchAnswer, 'operator', { names: ['amount', 'count', 'expires_at', 'idempotency_key'], texts: ['note'] }),
    consoleRoute('GET', '/console/api/topup/batches', listBatches, 'operator', { query: ['offset'] }),
    consoleRoute('PATCH', '/console/api/topup/batches/{id}', updateBatch, 'operator'),
    consoleRoute('GET', '/console/api/topup/codes', listCodes, 'operator', CODES_QUERY),
    consoleRoute('GET', '/console/api/topup/codes.csv', exportCodes, 'operator', { query: ['batch', 'status', 'account'] }),
    consoleRoute('PATCH', '/console/api/topup/codes/{id}', updateCode, 'operator'),
    consoleRoute('POST', '/console/api/topup/redeem', redeemAnswer, 'user', { names: ['code'] }),
  ],
  store: topupStorePart,
};
