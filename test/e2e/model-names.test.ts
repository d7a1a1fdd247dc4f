// A model name that differs from a configured one only by whitespace, an invisible character or a trailing slash is a
// 400 (issue 40): `"demo-fast "`, `"demo-fast/"` and `"demo-fast\u200b"` matched the channel's glob `demo-*` but not
// the per-model limit on `demo-fast`, so they went on past it. Over HTTP with the official SDKs, on a group whose
// limit on demo-fast is one request a minute (the limiter's clock stands still).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { MemoryLimiter } from '../../core/limits/memory-limiter.js';
import { FakeAnthropic } from '../helpers/fake-anthropic.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const KEY = 'sk-model-limited-0123456789';
const DECOYS = [
  'demo-fast ',
  ' demo-fast',
  'demo-fast/',
  'demo-fast\u200b',
  '\ufeffdemo-fast',
  'demo-fast\u00a0',
  'demo\u2060-fast',
  'demo-fast\u00ad',
  'demo-fast\t',
  'demo-fast\u3000',
];

describe('model names that differ only by what cannot be seen', () => {
  const openai = new FakeOpenAI('openai');
  const claude = new FakeAnthropic('claude');
  const limiter = new MemoryLimiter({ now: () => 1_900_000_000_000 });
  let gw: GatewayUnderTest;
  let chat: OpenAI;
  let messages: Anthropic;
  const upstreamCalls = (): number => openai.requests.length + claude.requests.length;

  before(async () => {
    await Promise.all([openai.start(), claude.start()]);
    gw = await startGatewayUnderTest(
      `server: { port: 0, host: 127.0.0.1 }
store: { url: "sqlite:./gateway.db" }
channels:
  - { name: openai, type: openai, base_url: "${openai.url}", keys: [sk-up-openai], models: ["demo-*", "vendor/*"], models_refresh_ms: 0 }
  - { name: claude, type: anthropic, base_url: "${claude.url}", keys: [sk-up-claude], models: ["claude-*"], models_refresh_ms: 0 }
groups:
  pro: { models: ["*"], limits: { models: { "demo-fast": { rpm: 1 }, "claude-fast": { rpm: 1 } } } }
pricing: { unpriced: free }
keys:
  - { name: limited, key: ${KEY}, group: pro }
`,
      { limiter },
    );
    chat = new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    messages = new Anthropic({ apiKey: KEY, baseURL: gw.url, maxRetries: 0 });
  });

  after(async () => {
    await gw?.stop();
    await Promise.all([openai.close(), claude.close()]);
  });

  const ask = (model: string): Promise<unknown> => chat.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });

  it('spends the limit of demo-fast, then the decoys are refused with a 400 naming the model, never sent upstream', async () => {
    await ask('demo-fast');
    await assert.rejects(ask('demo-fast'), (err: unknown) => err instanceof OpenAI.APIError && err.status === 429);
    const before = upstreamCalls();
    const wrong: string[] = [];
    for (const decoy of DECOYS) {
      try {
        await ask(decoy);
        wrong.push(`${JSON.stringify(decoy)}: served`);
      } catch (err) {
        if (!(err instanceof OpenAI.APIError) || err.status !== 400 || err.param !== 'model') wrong.push(`${JSON.stringify(decoy)}: ${String(err)}`);
      }
    }
    assert.deepEqual(wrong, []);
    assert.equal(upstreamCalls(), before, 'a decoy reached the upstream');
  });

  it('refuses them on /v1/messages too, in Anthropic\'s shape', async () => {
    const send = (model: string): Promise<unknown> => messages.messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    await send('claude-fast');
    const before = upstreamCalls();
    for (const decoy of ['claude-fast ', 'claude-fast/', 'claude-fast\u200b']) {
      await assert.rejects(send(decoy), (err: unknown) => {
        assert.ok(err instanceof Anthropic.APIError, String(err));
        assert.equal(err.status, 400);
        assert.equal((err.error as { error?: { type?: string } }).error?.type, 'invalid_request_error');
        return true;
      });
    }
    assert.equal(upstreamCalls(), before);
  });

  it('still serves names with a slash inside, and other models of the glob', async () => {
    await ask('vendor/demo-fast');
    await ask('demo-slow');
    assert.equal(openai.requests.at(-1)?.body['model'], 'demo-slow');
  });
});
