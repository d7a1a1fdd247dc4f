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

test("a parameter may be followed by literal text in its segment (Google's /v1beta/models/{model}:generateContent)", () => {
  const base = BUILTIN_ENDPOINTS.byKey('GET /v1/models/{id}');
  assert.ok(base !== undefined);
  const of = (path: string): Endpoint => ({ method: 'POST', path, createFormat: base.createFormat, chain: ['auth'] });
  const registry = new EndpointRegistry([of('/v1beta/models/{model}:generateContent'), of('/v1beta/models/{model}:streamGenerateContent')]);
  const found = registry.match('POST', '/v1beta/models/gemini-2.5-pro:streamGenerateContent');
  assert.deepEqual([found?.key, found?.params, found?.path], ['/v1beta/models/{model}:streamGenerateContent', { model: 'gemini-2.5-pro' }, '/v1beta/models/gemini-2.5-pro:streamGenerateContent']);
  // The parameter is decoded, and put back encoded before its literal.
  const spaced = registry.match('POST', '/v1beta/models/my%20model:generateContent');
  assert.deepEqual([spaced?.params, spaced?.path], [{ model: 'my model' }, '/v1beta/models/my%20model:generateContent']);
  // The literal must end the segment, and something must stand before it.
  for (const path of ['/v1beta/models/:generateContent', '/v1beta/models/m:generateContentX', '/v1beta/models/m:countTokens', '/v1beta/models/m', '/v1beta/models/m:generateContent/x']) {
    assert.equal(registry.match('POST', path), undefined, path);
  }
  assert.throws(() => new EndpointRegistry([of('/v1beta/models/{model}:{method}')]), /one parameter, then literal text/);
});
