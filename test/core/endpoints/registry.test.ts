// The registry's body families (issue 40): the admin and console entries, whose chains the config cannot change,
// each name theirs, and a registry refuses one that does not (it would take bodies as large as an API's).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EndpointRegistry, type Endpoint } from '../../../core/endpoints/registry.js';
import { BUILTIN_ENDPOINTS } from '../../../features/index.js';

test('every admin and console entry names its body family; only sign-in, the password link and the pages are open', () => {
  const fixed = BUILTIN_ENDPOINTS.all.filter((e) => e.configurable === false);
  assert.ok(fixed.length >= 39);
  for (const e of fixed) assert.ok(e.body === 'control' || e.body === 'open', `${e.method} ${e.path}`);
  const open = fixed.filter((e) => e.body === 'open').map((e) => `${e.method} ${e.path}`);
  assert.deepEqual(open, ['POST /console/api/session', 'POST /console/api/password', 'GET /console', 'GET /console/', 'GET /console/static/{file}']);
  // The API routes keep server.body_limit.
  assert.ok(BUILTIN_ENDPOINTS.all.filter((e) => e.path.startsWith('/v1/')).every((e) => e.body === undefined));
});

test('a registry refuses an admin or console entry without a body family', () => {
  const console = BUILTIN_ENDPOINTS.byKey('GET /console/api/keys') as Endpoint;
  const unnamed: Endpoint = { method: 'GET', path: '/console/api/new-page', createFormat: console.createFormat, chain: console.chain, configurable: false };
  assert.throws(() => BUILTIN_ENDPOINTS.with([unnamed]), /GET \/console\/api\/new-page: a route of the admin API or the console declares its body family/);
  assert.ok(BUILTIN_ENDPOINTS.with([Object.assign({}, unnamed, { body: 'control' as const })]) instanceof EndpointRegistry);
});
