// An upstream that answers 3xx (issue 40): the gateway never follows it and never relays it (it was relayed as an
// empty 302 without its Location). The caller gets a 502 in its API's shape saying the upstream redirected, without
// the Location (its query may carry a token); the attempt counts as the channel's failure, so failover tries the
// next channel as for a 5xx. On the chat routes (OpenAI's and Anthropic's SDKs), an image route, and the asset library.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ALICE, errorOf, startAssetGateway, type AssetGateway } from '../helpers/asset-gateway.js';
import { FakeAnthropic } from '../helpers/fake-anthropic.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const LOCATION = 'https://elsewhere.example/login?token=SECRET-TOKEN-0123';

function assertRedirectRefusal(text: string): void {
  assert.match(text, /answered HTTP 30[12378], a redirect, which the gateway does not follow/);
  assert.ok(!text.includes('elsewhere.example') && !text.includes('SECRET-TOKEN'), `the Location leaked: ${text}`);
}

describe('relayed routes: an upstream 3xx is a 502 that says so', () => {
  const redirecting = new FakeOpenAI('redirecting');
  const good = new FakeOpenAI('good');
  const claude = new FakeAnthropic('claude-redirecting');
  let gw: GatewayUnderTest;

  before(async () => {
    for (const fake of [redirecting, good, claude]) await fake.start();
    let n = 0;
    const statuses = [302, 301, 307, 308, 303];
    redirecting.reply = () => ({ kind: 'status', status: statuses[n++ % statuses.length] as number, body: {}, headers: { location: LOCATION } });
    claude.reply = () => ({ kind: 'status', status: 302, body: {}, headers: { location: LOCATION } });
    gw = await startGatewayUnderTest(
      configWith(`  - { name: redirecting, type: openai, base_url: "${redirecting.url}", keys: [sk-up-redirect-0123456789], models: ["gpt-*"], priority: 1, cooldown_ms: 0, models_refresh_ms: 0 }
  - { name: good, type: openai, base_url: "${good.url}", keys: [sk-up-good-0123456789], models: ["gpt-failover"], cooldown_ms: 0, models_refresh_ms: 0 }
  - { name: claude, type: anthropic, base_url: "${claude.url}", keys: [sk-ant-up-0123456789], models: ["claude-*"], cooldown_ms: 0, models_refresh_ms: 0 }
`),
    );
  });
  after(async () => {
    await gw.stop();
    for (const fake of [redirecting, good, claude]) await fake.close();
  });

  it('/v1/chat/completions, whole and streamed: 502 in OpenAI\'s shape, for each redirect status', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    for (let i = 0; i < 5; i++) {
      await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }), (err: unknown) => {
        assert.ok(err instanceof OpenAI.APIError, String(err));
        assert.equal(err.status, 502);
        assert.equal(err.code, 'upstream_error');
        assertRedirectRefusal(err.message);
        assert.equal(err.headers?.get('location') ?? null, null);
        return true;
      });
    }
    const streamed = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(streamed.status, 502);
    assert.equal(streamed.headers.get('location'), null);
    const body = (await streamed.json()) as { error: { message: string; type: string } };
    assertRedirectRefusal(body.error.message);
  });

  it('/v1/messages: 502 in Anthropic\'s shape', async () => {
    const client = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
    await assert.rejects(client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }), (err: unknown) => {
      assert.ok(err instanceof Anthropic.APIError, String(err));
      assert.equal(err.status, 502);
      const error = err.error as { type: string; error: { type: string; message: string } };
      assert.equal(error.type, 'error');
      assertRedirectRefusal(error.error.message);
      return true;
    });
  });

  it('/v1/images/generations: 502', async () => {
    const res = await fetch(`${gw.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-image-1', prompt: 'a lighthouse' }),
    });
    assert.equal(res.status, 502);
    assertRedirectRefusal(((await res.json()) as { error: { message: string } }).error.message);
  });

  it('a failed attempt: the next channel serves, as after a 5xx', async () => {
    const before = good.requests.length;
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'gpt-failover', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(answer.object, 'chat.completion');
    assert.equal(good.requests.length - before, 1);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    assert.match(metrics, /gateway_upstream_errors_total\{channel="redirecting",reason="redirect"\} [1-9]/);
  });
});

describe('the asset library: a control plane that answers 3xx', () => {
  let t: AssetGateway;
  before(async () => {
    t = await startAssetGateway();
  });
  after(async () => {
    await t.stop();
  });

  it('is a 502 in Volcengine\'s envelope saying it redirected', async () => {
    t.fake.failNext('CreateAssetGroup', 302, 'Found', `moved to ${LOCATION}`);
    const answer = await t.call(ALICE, 'CreateAssetGroup', { Name: 'moved' });
    assert.equal(answer.status, 502, answer.text);
    assertRedirectRefusal(errorOf(answer).Message);
    assert.ok(!answer.text.includes('SECRET-TOKEN'), answer.text);
  });
});
