// The web console: its pages and its API (a session cookie, not a key; the console route group checks it before the
// body: plugins/console-session). Its chains cannot be rewritten in gateway.yaml.

import { consoleRoute, CREDIT_READS, KEY_READS } from '../../core/endpoints/route-groups.js';
import type { BodyReads } from '../../core/endpoints/registry.js';
import type { Feature } from '../../core/feature/feature.js';
import { createAccountAnswer, createUser, listAccounts, postingAnswer, updateAccount } from './accounts.js';
import { createKeyAnswer, listKeys, revokeKeyAnswer, updateKeyAnswer } from './keys.js';
import { listChannels, listInstances, reloadConfig, showConfig } from './operations.js';
import { servePage } from './pages.js';
import { exportUsage, showDashboard, showLedger, showUsage } from './reads.js';
import { setPassword, showSession, signIn, signOut } from './session.js';
import { changeOwnPassword, endOwnSession, listAccountUsers, listOwnSessions, updateAccountUser } from './users.js';

const USAGE_QUERY: BodyReads = { query: ['from', 'to', 'key_id', 'model', 'route', 'request_id', 'status', 'cursor', 'limit', 'account'] };

export const consoleFeature: Feature = {
  name: 'console',
  routes: [
    consoleRoute('POST', '/console/api/session', signIn, 'open', { names: ['name', 'admin_token'], texts: ['password'] }),
    consoleRoute('GET', '/console/api/session', showSession, 'user'),
    consoleRoute('DELETE', '/console/api/session', signOut, 'user'),
    consoleRoute('POST', '/console/api/password', setPassword, 'open', { names: ['token'], texts: ['password'] }),
    consoleRoute('POST', '/console/api/password/change', changeOwnPassword, 'user', { texts: ['current_password', 'password'] }),
    consoleRoute('GET', '/console/api/sessions', listOwnSessions, 'user'),
    consoleRoute('DELETE', '/console/api/sessions/{id}', endOwnSession, 'user'),
    consoleRoute('GET', '/console/api/dashboard', showDashboard, 'user', { query: ['from', 'to', 'bucket', 'account'] }),
    consoleRoute('GET', '/console/api/keys', listKeys, 'user', { query: ['account'] }),
    consoleRoute('POST', '/console/api/keys', createKeyAnswer, 'user', KEY_READS),
    consoleRoute('PATCH', '/console/api/keys/{id}', updateKeyAnswer, 'user', KEY_READS),
    consoleRoute('DELETE', '/console/api/keys/{id}', revokeKeyAnswer, 'user'),
    consoleRoute('GET', '/console/api/usage', showUsage, 'user', USAGE_QUERY),
    consoleRoute('GET', '/console/api/usage.csv', exportUsage, 'user', USAGE_QUERY),
    consoleRoute('GET', '/console/api/ledger', showLedger, 'user', { query: ['cursor', 'limit', 'account'] }),
    consoleRoute('GET', '/console/api/accounts', listAccounts, 'operator'),
    consoleRoute('POST', '/console/api/accounts', createAccountAnswer, 'operator', { names: ['name', 'groups.*'], texts: ['description'] }),
    consoleRoute('PATCH', '/console/api/accounts/{name}', updateAccount, 'operator', { names: ['groups.*'] }),
    consoleRoute('POST', '/console/api/accounts/{name}/credit', postingAnswer('credit'), 'operator', CREDIT_READS),
    consoleRoute('POST', '/console/api/accounts/{name}/debit', postingAnswer('debit'), 'operator', CREDIT_READS),
    consoleRoute('POST', '/console/api/accounts/{name}/adjust', postingAnswer('adjustment'), 'operator', CREDIT_READS),
    consoleRoute('POST', '/console/api/accounts/{name}/users', createUser, 'operator', { names: ['name'] }),
    consoleRoute('GET', '/console/api/accounts/{name}/users', listAccountUsers, 'operator'),
    consoleRoute('PATCH', '/console/api/accounts/{name}/users/{user}', updateAccountUser, 'operator'),
    consoleRoute('GET', '/console/api/channels', listChannels, 'operator'),
    consoleRoute('GET', '/console/api/instances', listInstances, 'operator'),
    consoleRoute('GET', '/console/api/config', showConfig, 'operator'),
    consoleRoute('POST', '/console/api/config/reload', reloadConfig, 'operator'),
    // The pages: index.html at /console, its script and style under /console/static/.
    consoleRoute('GET', '/console', servePage, 'page'),
    consoleRoute('GET', '/console/', servePage, 'page'),
    consoleRoute('GET', '/console/static/{file}', servePage, 'page'),
  ],
};
