// An upstream's in-band error (a stream already answered 200) may echo the channel's key as an error body may:
// it reaches the client scrubbed, passed through to an Anthropic client and translated for an OpenAI one, while
// the frames before it pass byte for byte.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FakeAnthropic } from '../helpers/fake-anthropic.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const CHANNEL_KEY = 'sk-ant-upstream/Zq8w0123456789abcdef';
const SECRET_PART = 'Zq8w0123456789abcdef';

let fake: FakeAnthropic;
let gw: GatewayUnderTest;

before(async () => {
  fake = await new FakeAnthropic('echo').start();
  fake.reply = () => ({
    kind: 'stream',
    content: [{ type: 'text', text: 'hello there' }],
    errorAfter: 3,
    // JSON spells the slash \/ in some vendors' encoders; the message puts the key right after a newline.
    errorMessage: `Overloaded for key\n${CHANNEL_KEY}`,
  });
  gw = await startGatewayUnderTest(
    configWith(`  - name: echo
    type: anthropic
    base_url: ${fake.url}
    keys: ["${CHANNEL_KEY}"]
    models: ["claude-*"]
    cooldown_ms: 0
`),
  );
});

after(async () => {
  await gw.stop();
  await fake.close();
});

test('passed through to an Anthropic client: the error event is scrubbed, the frames before it are as sent', async () => {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.ok(!text.includes(SECRET_PART), text);
  const upstream = fake.lastStreamBytes.toString();
  assert.ok(upstream.includes(SECRET_PART), 'the fake did echo the key');
  const cut = upstream.indexOf('event: error');
  assert.ok(text.startsWith(upstream.slice(0, cut)), 'the frames before the error pass untouched');
  const errorData = /event: error\ndata: (.*)\n\n/.exec(text)?.[1];
  assert.deepEqual(JSON.parse(errorData ?? 'null'), { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded for key\n[redacted]' } });
});

test('translated for an OpenAI client: the error it is told carries no key', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.ok(!text.includes(SECRET_PART), text);
  assert.match(text, /\[redacted\]/);
  assert.match(text, /"error":\{/);
});
