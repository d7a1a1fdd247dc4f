// Issue 40: server.admin_listen puts the admin API on a listener of its own (e.g. one only the operators' network
// reaches): /admin/* is served there, with its token, its limits and its body cap, and answers 404 on the public
// port; the listener serves nothing else, and closes with the gateway.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAdminEndpoint } from '../../core/endpoints/registry.js';
import { BUILTIN_ENDPOINTS } from '../../features/index.js';
import { freePort } from '../helpers/cli-process.js';
import { configWith, startGatewayUnderTest, TEST_KEY } from '../helpers/gateway-under-test.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
const MOCK = `  - name: demo
    type: mock
    models: ["demo-*"]
`;

test('server.admin_listen: /admin/* on its own address, 404 on the public port; nothing else on the admin port', async () => {
  const port = await freePort();
  const gw = await startGatewayUnderTest(configWith(MOCK).replace('shutdown_grace_ms: 5000', `shutdown_grace_ms: 5000\n  admin_listen: 127.0.0.1:${port}`));
  const adminUrl = `http://127.0.0.1:${port}`;
  const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
  try {
    assert.equal(gw.gateway.adminUrl, adminUrl);
    // Every admin route of the registry is gone from the public port, with the right token, before any body is read.
    const routes = BUILTIN_ENDPOINTS.all.filter(isAdminEndpoint);
    assert.ok(routes.length >= 11);
    for (const route of routes) {
      const res = await fetch(`${gw.url}${route.path.replace(/\{[^}]+\}/g, 'x')}`, {
        method: route.method,
        headers: Object.assign({ 'content-type': 'application/json' }, bearer),
        ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: '{}' }),
      });
      const body = (await res.json()) as { error?: { code?: unknown } };
      assert.deepEqual([res.status, body.error?.code], [404, 'unknown_url'], `${route.method} ${route.path} on the public port`);
    }
    // On the admin port: a key made there works on the public port at once.
    const made = await fetch(`${adminUrl}/admin/keys`, {
      method: 'POST',
      headers: Object.assign({ 'content-type': 'application/json' }, bearer),
      body: JSON.stringify({ name: 'from-admin-port', group: 'pro' }),
    });
    assert.equal(made.status, 201, await made.clone().text());
    const key = ((await made.json()) as { key: string }).key;
    assert.equal((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status, 200);
    // Its token is still required there, and its body cap holds.
    assert.equal((await fetch(`${adminUrl}/admin/keys`)).status, 401);
    const big = await fetch(`${adminUrl}/admin/keys`, {
      method: 'POST',
      headers: Object.assign({ 'content-type': 'application/json' }, bearer),
      body: JSON.stringify({ name: 'x'.repeat(70_000), group: 'pro' }),
    });
    assert.equal(big.status, 413);
    // The API, the console and the rest stay on the public port only.
    for (const path of ['/v1/models', '/console/api/session', '/healthz', '/metrics']) {
      const res = await fetch(`${adminUrl}${path}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
      assert.equal(res.status, 404, `${path} on the admin port`);
    }
    assert.equal((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } })).status, 200);
  } finally {
    await gw.stop();
  }
  await assert.rejects(fetch(`${adminUrl}/admin/keys`, { headers: bearer }), 'closed with the gateway');
});
