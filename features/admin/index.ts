// The admin API: run-time keys, accounts and their money, the fleet's instances. Its routes take the operator's
// token, never a key (the admin route group, checked before the body); their chains cannot be rewritten.

import { adminRoute, CREDIT_READS, KEY_READS } from '../../core/endpoints/route-groups.js';
import type { Feature } from '../../core/feature/feature.js';
import { createAccountAnswer, creditAccountAnswer, listAccounts, showAccount } from './accounts.js';
import { listInstances } from './instances.js';
import { createKeyAnswer, listKeys, revokeKeyAnswer, updateKeyAnswer } from './keys.js';

export const adminFeature: Feature = {
  name: 'admin',
  routes: [
    adminRoute('GET', '/admin/keys', listKeys),
    adminRoute('POST', '/admin/keys', createKeyAnswer, KEY_READS),
    adminRoute('PATCH', '/admin/keys/{id}', updateKeyAnswer, KEY_READS),
    adminRoute('DELETE', '/admin/keys/{id}', revokeKeyAnswer),
    adminRoute('GET', '/admin/accounts', listAccounts),
    adminRoute('POST', '/admin/accounts', createAccountAnswer, { names: ['name'], texts: ['description'] }),
    adminRoute('GET', '/admin/accounts/{name}', showAccount),
    adminRoute('POST', '/admin/accounts/{name}/credit', creditAccountAnswer, CREDIT_READS),
    adminRoute('GET', '/admin/instances', listInstances),
  ],
};
