// The official openai SDK against the gateway: chat (non-stream, stream with include_usage), models.list.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

let upstream: FakeOpenAI;
let gw: GatewayUnderTest;
let client: OpenAI;

before(async () => {
  upstream = await new FakeOpenAI('upstream-a').start();
  gw = await startGatewayUnderTest(
    configWith(`${channel('a', upstream.url)}
  - name: demo
    type: mock
    models: ["demo-chat"]
  - name: alias
    type: openai
    base_url: ${upstream.url}
    keys: ["sk-upstream-alias"]
    models:
      my-model: gpt-upstream-name`),
  );
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gw.stop();
  await upstream.close();
});

test('chat.completions.create non-stream returns the upstream completion and records its usage', async () => {
  const before = upstream.requests.length;
  const res = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(res.choices[0]?.message.content, 'reply from upstream-a');
  assert.equal(res.usage?.prompt_tokens, DEFAULT_USAGE.prompt);
  const sent = upstream.requests[before];
  assert.ok(sent);
  assert.equal(sent.headers['authorization'], 'Bearer sk-upstream-a', 'the caller key is replaced by the channel key');
  assert.equal(sent.path, '/v1/chat/completions');
  const records = (await gw.usage()).filter((r) => r.model === 'gpt-4o' && !r.stream);
  assert.equal(records.length, 1);
  assert.deepEqual(
    [records[0]?.promptTokens, records[0]?.completionTokens, records[0]?.cachedTokens, records[0]?.reasoningTokens],
    [DEFAULT_USAGE.prompt, DEFAULT_USAGE.completion, DEFAULT_USAGE.cached, DEFAULT_USAGE.reasoning],
  );
  assert.equal(records[0]?.channel, 'a');
  assert.equal(records[0]?.keyName, 'tester');
  assert.equal(records[0]?.status, 200);
});

test('unknown request fields reach the upstream untouched, byte for byte', async () => {
  const before = upstream.requests.length;
  const body = '{"model":"gpt-4o","messages":[{"role":"user","content":"x"}],"x_future_field":{"a":[1,2]},"temperature":0.25}';
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }, body });
  assert.equal(res.status, 200);
  assert.equal(upstream.requests[before]?.raw.toString(), body);
});

test('an aliased model is rewritten for the upstream and nothing else changes', async () => {
  const before = upstream.requests.length;
  const res = await client.chat.completions.create({ model: 'my-model', messages: [{ role: 'user', content: 'hi' }], top_p: 0.5 });
  assert.ok(res.choices[0]);
  const sent = upstream.requests[before];
  assert.equal(sent?.body['model'], 'gpt-upstream-name');
  assert.equal(sent?.body['top_p'], 0.5);
  assert.equal(sent?.headers['authorization'], 'Bearer sk-upstream-alias');
});

test('stream with include_usage yields the text and the usage chunk', async () => {
  const stream = await client.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let usage: OpenAI.CompletionUsage | null | undefined = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  assert.equal(text, 'Hello from upstream-a — ✓');
  assert.equal(usage?.completion_tokens, DEFAULT_USAGE.completion);
  assert.equal(usage?.prompt_tokens_details?.cached_tokens, DEFAULT_USAGE.cached);
  const record = (await gw.usage()).find((r) => r.stream && r.model === 'gpt-4o');
  assert.equal(record?.promptTokens, DEFAULT_USAGE.prompt);
  assert.equal(record?.cachedTokens, DEFAULT_USAGE.cached);
  assert.ok(record?.ttftMs !== null && record !== undefined && record.ttftMs >= 0);
});

test('a stream without include_usage is metered but the client never sees the usage chunk', async () => {
  const before = upstream.requests.length;
  const usageBefore = (await gw.usage()).length;
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'x' }] }),
  });
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  assert.equal(res.headers.get('x-accel-buffering'), 'no');
  const text = await res.text();
  assert.deepEqual(upstream.requests[before]?.body['stream_options'], { include_usage: true });
  assert.ok(!text.includes('"choices":[]'), 'the usage-only chunk is dropped');
  assert.ok(text.endsWith('data: [DONE]\n\n'));
  const records = await gw.usage();
  assert.equal(records.length, usageBefore + 1);
  assert.equal(records[0]?.completionTokens, DEFAULT_USAGE.completion);
});

test('models.list returns the models of the key group, the gpt-* glob as the upstream lists it', async () => {
  await gw.modelsDiscovered();
  const ids: string[] = [];
  for await (const model of client.models.list()) ids.push(model.id);
  // The fake lists gpt-4o, gpt-4o-mini, o3-mini and text-embedding-3-small; channel a serves gpt-*.
  assert.deepEqual(ids.sort(), ['demo-chat', 'gpt-4o', 'gpt-4o-mini', 'my-model']);
});

test('the mock channel answers like OpenAI, streaming and not', async () => {
  const res = await client.chat.completions.create({ model: 'demo-chat', messages: [{ role: 'user', content: 'ping' }] });
  assert.equal(res.choices[0]?.message.content, 'Hello from the mock channel! You said: "ping"');
  assert.ok((res.usage?.total_tokens ?? 0) > 0);
  const stream = await client.chat.completions.create({ model: 'demo-chat', messages: [{ role: 'user', content: 'ping' }], stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  assert.equal(text, 'Hello from the mock channel! You said: "ping"');
});
