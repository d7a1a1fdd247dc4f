// Requests still running when the shutdown grace runs out are ended as the shutdown, not as if their clients had
// left: a stream gets its format's in-band error before it closes, a waiting request a 503, and each usage
// record says GW_ERR_SHUTTING_DOWN.

import { inspect } from 'node:util';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, configWith, readUsageFile, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until, withDeadline } from '../helpers/poll.js';

let upstream: FakeOpenAI;
let gw: GatewayUnderTest;

before(async () => {
  upstream = await new FakeOpenAI('slow').start();
  upstream.reply = (req) =>
    req.body['model'] === 'gpt-hang'
      ? { kind: 'hang' }
      : { kind: 'stream', pieces: Array.from({ length: 200 }, (_, i) => `p${i} `), delayMs: 50 };
  gw = await startGatewayUnderTest(
    configWith(`  - name: slow
    type: openai
    base_url: ${upstream.url}
    keys: ["sk-upstream-slow-0123456789"]
    models: ["gpt-*"]
  - name: demo
    type: mock
    models: ["demo-*"]
    mock: { chunk_delay_ms: 50 }
`).replace('shutdown_grace_ms: 5000', 'shutdown_grace_ms: 300'),
  );
});

after(async () => {
  await upstream.close();
  await rm(gw.dir, { recursive: true, force: true });
});

test('past the grace: the stream hears the shutdown in-band, the waiting request gets 503, the records say so', async () => {
  const stream = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'long' }] }),
  });
  assert.equal(stream.status, 200);
  const streamText = stream.text();
  const waiting = fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-hang', messages: [{ role: 'user', content: 'wait' }] }),
  });
  // An Anthropic client on a stream too: its in-band error is an `event: error` frame the SDK raises.
  const anthropic = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
  const messages = anthropic.messages.create({ model: 'demo-chat', max_tokens: 4096, stream: true, messages: [{ role: 'user', content: 'x'.repeat(400) }] });
  const anthropicEvents = (async () => {
    const seen: string[] = [];
    try {
      for await (const event of await messages) seen.push(event.type);
      return { seen, error: null };
    } catch (err) {
      return { seen, error: err };
    }
  })();
  await until('three requests in flight', () => (gw.gateway.runtime.inFlightCount === 3 ? true : undefined), { timeoutMs: 5_000, intervalMs: 10 });

  await withDeadline(gw.gateway.close(), 10_000, 'the gateway closes');

  const text = await streamText;
  assert.match(text, /data: \{"error":\{"message":"The gateway is shutting down[^"]*","type":"server_error","param":null,"code":"server_shutting_down"\}\}\n\n$/);
  const refused = await waiting;
  assert.equal(refused.status, 503);
  assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'server_shutting_down');
  const { seen, error } = await anthropicEvents;
  assert.ok(seen.includes('message_start'), seen.join(','));
  assert.ok(error instanceof Anthropic.APIError, String(error));
  assert.match(String(error), /shutting down/);

  const records = await readUsageFile(join(gw.dir, 'gateway.db'));
  assert.equal(records.length, 3);
  for (const r of records) assert.deepEqual([r.errorCode, r.aborted], ['GW_ERR_SHUTTING_DOWN', true], inspect(r));
  assert.deepEqual(records.map((r) => r.status).sort(), [200, 200, 503]);
});
