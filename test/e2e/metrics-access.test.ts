// /metrics is open by default; server.metrics_token puts it behind a bearer token, and server.metrics_listen moves it
// to an address of its own, off the main port.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '../helpers/cli-process.js';
import { configWith, startGatewayUnderTest } from '../helpers/gateway-under-test.js';

const MOCK = `  - name: demo
    type: mock
    models: ["demo-*"]
`;
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

test('server.metrics_token: /metrics answers 401 without it, the exposition with it', async () => {
  const gw = await startGatewayUnderTest(configWith(MOCK).replace('shutdown_grace_ms: 5000', `shutdown_grace_ms: 5000\n  metrics_token: ${METRICS_TOKEN}`));
  try {
    const refused = await fetch(`${gw.url}/metrics`);
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'invalid_metrics_token');
    const wrong = await fetch(`${gw.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-wrong-000000' } });
    assert.equal(wrong.status, 401);
    const served = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(served.status, 200);
    assert.match(await served.text(), /# TYPE gateway_requests_total counter/);
  } finally {
    await gw.stop();
  }
});

test('server.metrics_listen: /metrics and /healthz on their own address, /metrics gone from the main port', async () => {
  const port = await freePort();
  const gw = await startGatewayUnderTest(configWith(MOCK).replace('shutdown_grace_ms: 5000', `shutdown_grace_ms: 5000\n  metrics_listen: 127.0.0.1:${port}`));
  try {
    assert.equal(gw.gateway.metricsUrl, `http://127.0.0.1:${port}`);
    assert.equal((await fetch(`${gw.url}/metrics`)).status, 404);
    const served = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(served.status, 200);
    assert.match(await served.text(), /# TYPE gateway_requests_total counter/);
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    const other = await fetch(`http://127.0.0.1:${port}/v1/models`);
    assert.equal(other.status, 404);
  } finally {
    await gw.stop();
  }
  // Closed with the gateway.
  await assert.rejects(fetch(`http://127.0.0.1:${port}/metrics`));
});
