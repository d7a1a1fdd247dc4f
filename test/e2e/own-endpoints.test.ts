// The gateway's own registry endpoints served by chains: the model list and the admin API. HEAD is served by the
// GET endpoint; an error answered outside the chain on the model list's path is in its caller's API; a client's
// path parameter never reaches a log line unscrubbed; a route of gateway.yaml cannot take a handler's place.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
const SECRET = 'sk-proj-SECRETabcdefghijklmnopqrstuvwx';

let fake: FakeOpenAI;
let gw: GatewayUnderTest;
let logText = '';

before(async () => {
  fake = await new FakeOpenAI('a').start();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logText += chunk.toString();
      done();
    },
  });
  gw = await startGatewayUnderTest(configWith(channel('a', fake.url)), { logger: pino({ level: 'info' }, sink) });
});

after(async () => {
  await gw.stop();
  await fake.close();
});

test('HEAD /v1/models is answered as the GET is, without a body', async () => {
  const res = await fetch(`${gw.url}/v1/models`, { method: 'HEAD', headers: { authorization: `Bearer ${TEST_KEY}` } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.equal((await res.arrayBuffer()).byteLength, 0);
  const refused = await fetch(`${gw.url}/v1/models`, { method: 'HEAD' });
  assert.equal(refused.status, 401);
});

test('a wrong method on the model list is refused in the caller\'s API', async () => {
  const anthropic = await fetch(`${gw.url}/v1/models`, { method: 'POST', headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' } });
  assert.equal(anthropic.status, 405);
  assert.equal(((await anthropic.json()) as { type: string }).type, 'error');
  const openai = await fetch(`${gw.url}/v1/models`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` } });
  assert.equal(openai.status, 405);
  assert.ok('error' in ((await openai.json()) as object));
});

test('a key pasted into a path parameter is answered, but logged scrubbed', async () => {
  const model = await fetch(`${gw.url}/v1/models/${SECRET}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  assert.equal(model.status, 404);
  await model.text();
  const revoke = await fetch(`${gw.url}/admin/keys/${SECRET}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(revoke.status, 404);
  await revoke.text();
  const ids = [model.headers.get('x-request-id'), revoke.headers.get('x-request-id')];
  for (const id of ids) assert.ok(logText.includes(id ?? 'missing'), `the refusal ${id} is logged`);
  assert.ok(!logText.includes(SECRET), logText.split('\n').filter((l) => l.includes('SECRET')).join('\n'));
});

test('a path parameter that is a dot segment, or too long, matches nothing', async () => {
  for (const id of ['..', '%2e%2e', 'x'.repeat(300)]) {
    const res = await fetch(`${gw.url}/v1/models/${id}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    assert.equal(res.status, 404, id);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unknown_url', id);
  }
});

test('a written route for a handler\'s path takes middleware only: a relay there, or the admin API\'s path, is refused', async () => {
  for (const route of ['  - path: GET /v1/models\n    plugins: [{ use: auth }, { use: relay }]\n', '  - path: GET /admin/keys\n    plugins: [{ use: auth }]\n']) {
    await gw.writeConfig(configWith(channel('a', fake.url), `routes:\n${route}`));
    assert.equal(await gw.gateway.reload(), false, route);
  }
  // The config in force is the one before: the list still answers the key, the admin API still wants its token.
  const list = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  assert.equal(list.status, 200);
  const admin = await fetch(`${gw.url}/admin/keys`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  assert.equal(admin.status, 401);
  assert.equal(((await admin.json()) as { error: { code: string } }).error.code, 'invalid_admin_token');
});
