// Upstreams echo the key they were sent in other spellings than the key itself: base64-encoded (standard or
// url-safe, alone or inside an encoded `Bearer <key>`), or cut short to its first 12 and last 4 characters
// ("sk-abc123def...wxyz"). None of these reaches the client or the log: on a relayed chat route (OpenAI's SDK), and
// in the asset library's errors, which also never carry the channel's Ark keys (its data-plane key, the AK/SK).

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import pino from 'pino';
import { AK, ALICE, ARK_KEY, errorOf, SK, startAssetGateway, type AssetGateway } from '../helpers/asset-gateway.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const CHANNEL_KEY = 'upstream-Zq8w0123456789abcdefWXYZ';

/** The ways the probe's upstream echoed a key: each must be gone, and so must the key's secret middle. */
function echoesOf(key: string): Record<string, string> {
  return {
    base64: Buffer.from(key).toString('base64'),
    base64url: Buffer.from(key).toString('base64url'),
    'encoded Bearer': Buffer.from(`Bearer ${key}`).toString('base64'),
    'first 12 and last 4': `${key.slice(0, 12)}...${key.slice(-4)}`,
    masked: `${key.slice(0, 8)}********${key.slice(-4)}`,
  };
}

function echoMessage(key: string): string {
  return Object.entries(echoesOf(key))
    .map(([how, echo]) => `${how}: ${echo}`)
    .join('; ');
}

function assertNoEcho(text: string, key: string, where: string): void {
  for (const [how, echo] of Object.entries(echoesOf(key))) assert.ok(!text.includes(echo), `${where} holds the key ${how}: ${text}`);
  assert.ok(!text.includes(key.slice(0, 12)), `${where} holds the key's first 12 characters: ${text}`);
}

/** A logger whose lines the test reads. */
function capturedLogger(): { logger: pino.Logger; text: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), text: () => text };
}

describe('a relayed route: an upstream error echoing the channel key encoded or cut short', () => {
  const fake = new FakeOpenAI('echo');
  const log = capturedLogger();
  let gw: GatewayUnderTest;

  before(async () => {
    await fake.start();
    fake.reply = () => ({
      kind: 'status',
      status: 401,
      body: { error: { message: `Incorrect API key provided (${echoMessage(CHANNEL_KEY)}).`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
    });
    gw = await startGatewayUnderTest(
      configWith(`  - name: echo
    type: openai
    formats: [openai-chat]
    base_url: ${fake.url}
    keys: ["${CHANNEL_KEY}"]
    models: ["gpt-*"]
    cooldown_ms: 0
`),
      { logger: log.logger },
    );
  });

  after(async () => {
    await gw.stop();
    await fake.close();
  });

  it('the client sees none of the echoes, and neither does the log', async () => {
    // A 401 is the channel's failure: the only channel failed, so the client hears the gateway's 502...
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError, String(err));
      assertNoEcho(JSON.stringify(err.error) + err.message, CHANNEL_KEY, 'the 401 answer');
      return true;
    });
    // ...and a 400 passes through as the upstream wrote it, scrubbed.
    fake.reply = () => ({
      kind: 'status',
      status: 400,
      body: { error: { message: `Bad request for ${echoMessage(CHANNEL_KEY)}.`, type: 'invalid_request_error', param: null, code: 'invalid_request' } },
    });
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }), (err: unknown) => {
      assert.ok(err instanceof OpenAI.BadRequestError, String(err));
      const message = (err.error as { message: string }).message;
      assertNoEcho(message, CHANNEL_KEY, 'the 400 answer');
      assert.equal((message.match(/\[redacted\]/g) ?? []).length, 5, message);
      return true;
    });
    const stream = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(stream.status, 400);
    assertNoEcho(await stream.text(), CHANNEL_KEY, 'a streaming request\'s 400');
    assert.ok(log.text().includes('request failed'), 'the failures were logged');
    assertNoEcho(log.text(), CHANNEL_KEY, 'the log');
  });
});

describe('the asset library: an error echoing the Ark keys', () => {
  const log = capturedLogger();
  let t: AssetGateway;

  before(async () => {
    t = await startAssetGateway({ logger: log.logger });
  });

  after(async () => {
    await t.stop();
  });

  for (const [name, secret] of [
    ['the data-plane API key', ARK_KEY],
    ['the access key id', AK],
    ['the secret access key', SK],
  ] as const) {
    it(`${name}, whole, encoded or cut short, reaches neither the caller nor the log`, async () => {
      t.fake.failNext('CreateAssetGroup', 400, 'InvalidParameter', `refused: ${secret}; ${echoMessage(secret)}`);
      const answer = await t.call(ALICE, 'CreateAssetGroup', { Name: 'echo' });
      assert.equal(answer.status, 400, answer.text);
      assert.equal(errorOf(answer).Code, 'InvalidParameter');
      assert.match(errorOf(answer).Message, /^refused: \[redacted\]; /);
      assert.ok(!answer.text.includes(secret), answer.text);
      assertNoEcho(answer.text, secret, 'the answer');
      assert.ok(log.text().includes('refused: [redacted]'), 'the refusal was logged');
      assertNoEcho(log.text(), secret, 'the log');
    });
  }
});
