// The web console: its pages and its API (a session cookie, not a key; the console route group, checked before the
// body). Its chains cannot be rewritten in gateway.yaml.

import { consoleRoute, CREDIT_READS, KEY_READS } from '../../core/endpoints/route-groups.js';
import type { BodyReads } from '../../core/endpoints/registry.js';
import type { Feature } from '../../core/feature/feature.js';

const USAGE_QUERY: BodyReads = { query: ['from', 'to', 'key_id', 'model', 'route', 'request_id', 'status', 'cursor', 'limit', 'account'] };

export const consoleFeature: Feature = {
  name: 'console',
  routes: [
    consoleRoute('POST', '/console/api/session', { names: ['name', 'admin_token'], texts: ['password'] }, 'open'),
    consoleRoute('GET', '/console/api/session'),
    consoleRoute('DELETE', '/console/api/session'),
    consoleRoute('POST', '/console/api/password', { names: ['token'], texts: ['password'] }, 'open'),
    consoleRoute('POST', '/console/api/accounts/{name}/users', { names: ['name'] }),
    consoleRoute('GET', '/console/api/dashboard', { query: ['from', 'to', 'bucket', 'account'] }),
    consoleRoute('GET', '/console/api/keys', { query: ['account'] }),
    consoleRoute('POST', '/console/api/keys', KEY_READS),
    consoleRoute('PATCH', '/console/api/keys/{id}', KEY_READS),
    consoleRoute('DELETE', '/console/api/keys/{id}'),
    consoleRoute('GET', '/console/api/usage', USAGE_QUERY),
    consoleRoute('GET', '/console/api/usage.csv', USAGE_QUERY),
    consoleRoute('GET', '/console/api/ledger', { query: ['cursor', 'limit', 'account'] }),
    consoleRoute('GET', '/console/api/accounts'),
    consoleRoute('POST', '/console/api/accounts', { names: ['name', 'groups.*'], texts: ['description'] }),
    consoleRoute('PATCH', '/console/api/accounts/{name}', { names: ['groups.*'] }),
    consoleRoute('POST', '/console/api/accounts/{name}/credit', CREDIT_READS),
    consoleRoute('GET', '/console/api/channels'),
    consoleRoute('GET', '/console/api/instances'),
    consoleRoute('GET', '/console/api/config'),
    consoleRoute('POST', '/console/api/config/reload'),
    // The pages: index.html at /console, its script and style under /console/assets/.
    consoleRoute('GET', '/console', undefined, 'open'),
    consoleRoute('GET', '/console/', undefined, 'open'),
    consoleRoute('GET', '/console/assets/{file}', undefined, 'open'),
  ],
};
