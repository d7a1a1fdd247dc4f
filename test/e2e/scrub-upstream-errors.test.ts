// An upstream error body that echoes the channel's key (some vendors do) reaches the client with the key, and
// anything else shaped like a key, replaced: passed through to an OpenAI client, translated for an Anthropic one.
// Successful bodies are the caller's content and pass untouched.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const CHANNEL_KEY = 'upstream-key-Zq8w0123456789abcdef';
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const OTHER_KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';

let fake: FakeOpenAI;
let gw: GatewayUnderTest;

before(async () => {
  fake = await new FakeOpenAI('echo').start();
  fake.reply = (req) =>
    req.body['model'] === 'gpt-echo'
      ? {
          kind: 'status',
          status: 400,
          body: {
            error: {
              message: `Invalid request for key ${CHANNEL_KEY} (header "Authorization: Bearer ${CHANNEL_KEY}"); also saw ${AWS_KEY} and ${OTHER_KEY}.`,
              type: 'invalid_request_error',
              param: null,
              code: 'invalid_request',
            },
          },
        }
      : { kind: 'completion', text: `your text: ${OTHER_KEY} ${CHANNEL_KEY}` };
  gw = await startGatewayUnderTest(
    configWith(`  - name: echo
    type: openai
    formats: [openai-chat]
    base_url: ${fake.url}
    keys: ["${CHANNEL_KEY}"]
    models: ["gpt-*"]
`),
  );
});

after(async () => {
  await gw.stop();
  await fake.close();
});

test('an upstream 400 that echoes the channel key reaches an OpenAI client scrubbed, otherwise as sent', async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-echo', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 400);
  const text = await res.text();
  for (const secret of [CHANNEL_KEY, AWS_KEY, OTHER_KEY]) assert.ok(!text.includes(secret), `${secret} in ${text}`);
  const body = JSON.parse(text) as { error: { message: string; code: string; type: string } };
  assert.equal(
    body.error.message,
    'Invalid request for key [redacted] (header "Authorization: Bearer [redacted]"); also saw [redacted] and [redacted].',
  );
  assert.deepEqual([body.error.code, body.error.type], ['invalid_request', 'invalid_request_error']);

  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  await assert.rejects(
    client.chat.completions.create({ model: 'gpt-echo', messages: [{ role: 'user', content: 'hi' }] }),
    (err: unknown) => err instanceof OpenAI.BadRequestError && !err.message.includes(CHANNEL_KEY) && err.message.includes('[redacted]'),
  );
});

test('translated for an Anthropic client, the upstream message is scrubbed too', async () => {
  const client = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
  await assert.rejects(
    client.messages.create({ model: 'gpt-echo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    (err: unknown) => {
      assert.ok(err instanceof Anthropic.BadRequestError, String(err));
      assert.ok(!JSON.stringify(err.error).includes(CHANNEL_KEY) && !err.message.includes(CHANNEL_KEY), err.message);
      assert.match(err.message, /\[redacted\]/);
      return true;
    },
  );
});

test('a successful body is the caller\'s content: key-shaped text in it passes untouched', async () => {
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(reply.choices[0]?.message.content, `your text: ${OTHER_KEY} ${CHANNEL_KEY}`);
});
