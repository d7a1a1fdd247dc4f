// The admin API: run-time keys, accounts and their money, the fleet's instances. Its routes take the operator's
// token, never a key (the admin route group, checked before the body); their chains cannot be rewritten.

import { adminRoute, CREDIT_READS, KEY_READS } from '../../core/endpoints/route-groups.js';
import type { Feature } from '../../core/feature/feature.js';
import { createAccountAnswer, creditAccountAnswer, listAccounts, showAccount, updateAccountAnswer } from './accounts.js';
import { listInstances } from './instances.js';
import { createKeyAnswer, listKeys, revokeKeyAnswer, updateKeyAnswer } from './keys.js';

/** What a max_spend reads as names (an amount, or {amount, period, timezone}). */
const SPEND_READS: readonly string[] = ['max_spend', 'max_spend.amount', 'max_spend.period', 'max_spend.timezone'];

export const adminFeature: Feature = {
  name: 'admin',
  routes: [
    adminRoute('GET', '/admin/keys', listKeys),
    adminRoute('POST', '/admin/keys', createKeyAnswer, KEY_READS),
    adminRoute('PATCH', '/admin/keys/{id}', updateKeyAnswer, KEY_READS),
    adminRoute('DELETE', '/admin/keys/{id}', revokeKeyAnswer),
    adminRoute('GET', '/admin/accounts', listAccounts),
    adminRoute('POST', '/admin/accounts', createAccountAnswer, { names: ['name', ...SPEND_READS], texts: ['description'] }),
    adminRoute('GET', '/admin/accounts/{name}', showAccount),
    adminRoute('PATCH', '/admin/accounts/{name}', updateAccountAnswer, { names: SPEND_READS }),
    adminRoute('POST', '/admin/accounts/{name}/credit', creditAccountAnswer, CREDIT_READS),
    adminRoute('GET', '/admin/instances', listInstances),
  ],
};
