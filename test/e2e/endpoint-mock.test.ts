// The mock channel answers an endpoint because that endpoint's registry entry says how (its `mock`): an entry added
// with the chat answer is served by a mock channel offline; the mock lists no paths of its own.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BUILTIN_ENDPOINTS } from '../../features/index.js';
import { createOpenAIChatFormat } from '../../core/formats/openai-chat/index.js';
import { MOCK_CHAT } from '../../core/providers/mock/answers.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

let gw: GatewayUnderTest;

before(async () => {
  const endpoints = BUILTIN_ENDPOINTS.with([
    { method: 'POST', path: '/v1/echo/chat', wire: 'openai-chat', createFormat: createOpenAIChatFormat, chain: ['auth', 'meter', 'relay'], mock: MOCK_CHAT },
    { method: 'POST', path: '/v1/echo/unmocked', wire: 'openai-chat', createFormat: createOpenAIChatFormat, chain: ['auth', 'meter', 'relay'] },
  ]);
  gw = await startGatewayUnderTest(configWith('  - name: demo\n    type: mock\n    models: ["demo-*"]\n'), { endpoints });
});

after(async () => {
  await gw.stop();
});

function post(path: string): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'demo-chat', messages: [{ role: 'user', content: 'Hello!' }] }),
  });
}

test('an endpoint whose entry names a mock answer is served by the mock channel', async () => {
  const res = await post('/v1/echo/chat');
  assert.equal(res.status, 200);
  const body = (await res.json()) as { choices: { message: { content: string } }[] };
  assert.equal(body.choices[0]?.message.content, 'Hello from the mock channel! You said: "Hello!"');
});

test('an endpoint without one is not answered by the mock (a 500 the log explains), not by another path\'s answer', async () => {
  const res = await post('/v1/echo/unmocked');
  assert.equal(res.status, 500);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'internal_error');
});
