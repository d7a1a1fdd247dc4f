// Adding an endpoint is one registry entry: a gateway started with one more entry (a chat-shaped endpoint at a path
// of its own) serves it over HTTP with its default chain (auth, meter, relay), accepts it as a route name in
// gateway.yaml, answers its errors in its API's shape, records and counts it, and hints at its method; nothing
// else was changed for it. Its records name the key's account (issue 40), though no quota in its chain charges one.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BUILTIN_ENDPOINTS } from '../../features/index.js';
import { createOpenAIChatFormat } from '../../core/formats/openai-chat/index.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const PATH = '/v1/echo/completions';
const ACME_KEY = 'sk-acme-echo-0123456789abcdefgh';
/** A key of an account, after the two test keys of configWith (its `extra` continues their list). */
const ACME = `  - name: acme-bot
    key: ${ACME_KEY}
    group: pro
    account: acme
accounts: [{ name: acme }]
`;

let fake: FakeOpenAI;
let gw: GatewayUnderTest;

before(async () => {
  fake = await new FakeOpenAI('echo').start();
  const endpoints = BUILTIN_ENDPOINTS.with([
    { method: 'POST', path: PATH, wire: 'openai-chat', createFormat: createOpenAIChatFormat, chain: ['auth', 'meter', 'relay'] },
  ]);
  gw = await startGatewayUnderTest(
    configWith(channel(), ACME),
    { endpoints },
  );
});

after(async () => {
  await gw.stop();
  await fake.close();
});

/** The one channel, to the fake upstream. */
function channel(): string {
  return `  - name: echo
    type: openai
    base_url: ${fake.url}
    keys: ["sk-upstream-echo-0123456789"]
    models: ["gpt-*"]
`;
}

function post(key: string): Promise<Response> {
  return fetch(`${gw.url}${PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

test('the registered endpoint is served with its default chain: relayed, recorded and counted', async () => {
  const res = await post(TEST_KEY);
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { object: string }).object, 'chat.completion');
  assert.equal(fake.requests.at(-1)?.path, PATH);
  const records = await gw.usage();
  assert.deepEqual(
    records.filter((r) => r.route === PATH).map((r) => [r.status, r.keyName, r.channel]),
    [[200, 'tester', 'echo']],
  );
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  assert.match(metrics, new RegExp(`^gateway_requests_total\\{route="${PATH.replaceAll('/', '\\/')}",model="gpt-\\*",channel="echo",status="200"\\} 1$`, 'm'));
});

test("its records name the key's account, though its chain has no quota to charge one", async () => {
  const served = await post(ACME_KEY);
  const failed = await fetch(`${gw.url}${PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'not-served', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const ids = [served, failed].map((r) => r.headers.get('x-request-id'));
  assert.deepEqual([served.status, failed.status], [200, 404]);
  const records = (await gw.usage()).filter((r) => ids.includes(r.requestId));
  assert.deepEqual(records.map((r) => [r.status, r.keyName, r.account]).sort(), [[200, 'acme-bot', 'acme'], [404, 'acme-bot', 'acme']]);
});

test('its errors are in its API\'s shape, and a wrong method is told the right one', async () => {
  const refused = await post('sk-not-a-key-0123456789abcdef');
  assert.equal(refused.status, 401);
  assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
  const wrong = await fetch(`${gw.url}${PATH}`);
  assert.equal(wrong.status, 405);
  assert.match(((await wrong.json()) as { error: { message: string } }).error.message, /accepts POST only/);
});

test('gateway.yaml may name it in routes', async () => {
  await gw.writeConfig(
    configWith(
      channel(),
      `routes:
  - path: ${PATH}
    plugins: [{ use: auth }, { use: relay }]
`,
    ),
  );
  assert.equal(await gw.gateway.reload(), true);
  assert.equal((await post(TEST_KEY)).status, 200);
  assert.deepEqual(gw.gateway.runtime.current.config.routes.find((r) => r.path === PATH)?.plugins.map((p) => p.use), ['auth', 'relay']);
});
