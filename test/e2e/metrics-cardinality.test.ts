// Metric labels take values only from sets the config bounds: a caller sending 10,000 distinct model names that a
// channel's glob serves grows no series (the glob is the label), and a model name longer than 256 characters is a
// 400 naming the field, on every route, before anything reaches a channel.

import assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import { after, before, test } from 'node:test';
import { series } from '../helpers/metric-series.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

let gw: GatewayUnderTest;
const agent = new Agent({ connections: 8 });

before(async () => {
  gw = await startGatewayUnderTest(
    // A body limit that lets a 1 MB model name through to the check of the name itself.
    configWith(`  - name: demo
    type: mock
    models: ["demo-chat", "demo-*"]
`).replace('body_limit: 65536', 'body_limit: 4194304'),
  );
});

after(async () => {
  await agent.close();
  await gw.stop();
});

async function chat(model: string): Promise<{ status: number; body: string }> {
  const res = await request(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.statusCode, body: await res.body.text() };
}

async function metricsText(): Promise<string> {
  const res = await request(`${gw.url}/metrics`, { dispatcher: agent });
  return res.body.text();
}

test('10,000 distinct model names that a glob serves leave /metrics within a few KB of its size before', async () => {
  // One request of each kind first, so the series they need exist before the size is taken.
  assert.equal((await chat('demo-chat')).status, 200);
  assert.equal((await chat('demo-warmup')).status, 200);
  const before = Buffer.byteLength(await metricsText());

  const names = Array.from({ length: 10_000 }, (_, i) => `demo-${i}-${Math.random().toString(36).slice(2)}`);
  for (let i = 0; i < names.length; i += 50) {
    const statuses = await Promise.all(names.slice(i, i + 50).map(async (name) => (await chat(name)).status));
    assert.ok(statuses.every((s) => s === 200), `every request is served: ${statuses.join(',')}`);
  }

  const text = await metricsText();
  const after = Buffer.byteLength(text);
  assert.ok(after - before < 4096, `/metrics grew by ${after - before} bytes (${before} -> ${after})`);
  assert.ok(!text.includes(names[0] as string), 'no client model name is a label value');
  const requests = series(text, 'gateway_requests_total');
  assert.equal(requests['{route="/v1/chat/completions",model="demo-*",channel="demo",status="200"}'], 10_001, 'the glob is the label');
  assert.equal(requests['{route="/v1/chat/completions",model="demo-chat",channel="demo",status="200"}'], 1, 'a configured name is its own label');
});

/** Sends `model` to every JSON route that names one and checks each answers 400 about `model` in its own shape. */
async function refusedOnEveryJsonRoute(model: string): Promise<void> {
  const bodies: [string, Record<string, unknown>][] = [
    ['/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] }],
    ['/v1/responses', { model, input: 'hi' }],
    ['/v1/responses/compact', { model, input: 'hi' }],
    ['/v1/messages', { model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }],
    ['/v1/messages/count_tokens', { model, messages: [{ role: 'user', content: 'hi' }] }],
    ['/v1/images/generations', { model, prompt: 'a cat' }],
  ];
  for (const [path, body] of bodies) {
    const anthropic = path.startsWith('/v1/messages');
    const res = await request(`${gw.url}${path}`, {
      method: 'POST',
      dispatcher: agent,
      headers: Object.assign(
        { 'content-type': 'application/json' },
        anthropic ? { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' } : { authorization: `Bearer ${TEST_KEY}` },
      ),
      body: JSON.stringify(body),
    });
    const answer = (await res.body.json()) as Record<string, Record<string, unknown>>;
    const what = `${path} ${JSON.stringify(model.slice(0, 12))}`;
    assert.equal(res.statusCode, 400, what);
    if (anthropic) {
      assert.equal(answer['error']?.['type'], 'invalid_request_error', what);
      assert.match(String(answer['error']?.['message']), /model/, what);
    } else {
      assert.equal(answer['error']?.['param'], 'model', what);
    }
  }
}

test('a model name over 256 characters is a 400 naming the field on every route; 256 are served', async () => {
  await refusedOnEveryJsonRoute(`demo-${'x'.repeat(1024 * 1024)}`);
  assert.equal((await chat(`demo-${'y'.repeat(251)}`)).status, 200, '256 characters are a model name');
  assert.equal((await chat(`demo-${'y'.repeat(252)}`)).status, 400, '257 are not');
});

test('a model name with a control character (NUL, a newline, DEL) is a 400 naming the field on every route, nothing recorded', async () => {
  const recordsBefore = (await gw.usage()).length;
  for (const model of ['demo-\u0000x', 'demo-\nx', 'demo-\u007fx']) {
    await refusedOnEveryJsonRoute(model);
    const form = new FormData();
    form.set('model', model);
    form.set('prompt', 'a cat');
    form.set('image', new Blob([Buffer.from('not really a png')], { type: 'image/png' }), 'cat.png');
    const edit = await fetch(`${gw.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: form });
    const answer = (await edit.json()) as Record<string, Record<string, unknown>>;
    assert.equal(edit.status, 400, `/v1/images/edits ${JSON.stringify(model)}`);
    assert.equal(answer['error']?.['param'], 'model');
  }
  assert.equal((await gw.usage()).length, recordsBefore, 'a request refused before the upstream writes no usage record');
});
