// The admin API's chain (auth with the operator's token, before its handler) cannot be written in gateway.yaml, so
// no config can leave it without its auth; the model list's route can be, by its method and path.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { issuesOf, parse, yaml } from './config-helpers.js';

const BASE = ['channels:', '  - name: demo', '    type: mock', '    models: [demo-*]', 'routes:'];

describe('routes of the gateway\'s own endpoints', () => {
  for (const path of ['GET /admin/keys', '/admin/keys', 'PATCH /admin/keys/{id}', 'DELETE /admin/keys/{id}']) {
    it(`refuses a written route for ${path}`, () => {
      const issues = issuesOf(yaml(...BASE, `  - path: ${path}`, '    plugins: [{ use: auth }]'));
      assert.equal(issues.length, 1, issues.join('\n'));
      assert.match(issues[0] ?? '', /^routes\[0\]\.path: must be one of: .*GET \/v1\/models\b/);
      assert.doesNotMatch(issues[0] ?? '', /admin/);
    });
  }

  it('accepts a written route for GET /v1/models, and keeps the admin routes\' own chain', () => {
    const config = parse(yaml(...BASE, '  - path: GET /v1/models', '    plugins: [{ use: auth }, { use: rate-limit }]'));
    assert.deepEqual(config.routes[0]?.plugins.map((p) => p.use), ['auth', 'rate-limit']);
    const admin = config.routes.find((r) => r.path === 'GET /admin/keys');
    assert.deepEqual(admin?.plugins.map((p) => [p.use, p.with]), [['auth', { credential: 'admin_token' }]]);
  });
});
