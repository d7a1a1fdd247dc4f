// Images and files are estimated by a stated rule (issue 40, finding 1), not as their URL's bytes or as 0: each
// image reserves 4,096 input tokens, each file or document 500,000 (core/money/media-estimate.ts), each file of a
// multipart form as an image. Input costs 1,000 nano-units a token. An account holding 3,000 tokens' worth is
// refused, with 402 and no upstream call, a request of a few hundred bytes that names one image (Chat, Messages,
// Responses, an image edit's form) or one PDF; it is served the same request without the image. An account with
// $2 is served the image and the PDF. Over the official SDKs.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { FakeAnthropic, anthropicChannel } from '../helpers/fake-anthropic.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { FakeOpenAIImages, tinyPng } from '../helpers/fake-openai-images.js';
import { FakeResponses } from '../helpers/fake-responses.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';
const TINY = 'sk-tiny-media-0123456789abcdef';
const ROOMY = 'sk-roomy-media-0123456789abcde';
const IMAGE_URL = 'https://images.example.com/cat.png';
const PDF_URL = 'https://files.example.com/report.pdf';

describe('images and files reserve by a stated rule', () => {
  const claude = new FakeAnthropic('claude');
  const gpt = new FakeOpenAI('gpt');
  const responses = new FakeResponses('resp');
  const images = new FakeOpenAIImages('img');
  let gw: GatewayUnderTest;
  const upstreamCalls = (): number => claude.requests.length + gpt.requests.length + responses.requests.length + images.requests.length;
  const openai = (key: string): OpenAI => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const anthropic = (key: string): Anthropic => new Anthropic({ apiKey: key, authToken: null, baseURL: gw.url, maxRetries: 0 });

  /** `call` is refused with 402 by the gateway, and no upstream is asked. */
  async function refused(call: () => Promise<unknown>): Promise<void> {
    const before = upstreamCalls();
    await assert.rejects(call(), (err: unknown) => (err as { status?: number }).status === 402);
    assert.equal(upstreamCalls(), before, 'a refused request reaches no upstream');
  }

  before(async () => {
    for (const fake of [claude, gpt, responses, images]) await fake.start();
    gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  default_output_reserve: 10
  models:
    "*": { input: 1.00, output: 0 }
groups:
  pro: { models: ["*"] }
accounts:
  - name: tiny
  - name: roomy
keys:
  - { name: tiny, key: ${TINY}, group: pro, account: tiny }
  - { name: roomy, key: ${ROOMY}, group: pro, account: roomy }
channels:
${anthropicChannel('claude', claude.url)}  - { name: gpt, type: openai, base_url: "${gpt.url}", keys: [sk-oai], models: ["gpt-4o"], formats: [openai-chat] }
  - { name: resp, type: openai, base_url: "${responses.url}", keys: [sk-resp], models: ["resp-*"], formats: [openai-responses] }
  - { name: img, type: openai, base_url: "${images.url}", keys: [sk-img], models: ["gpt-image-*"], formats: [openai-images] }
`);
    for (const [account, amount] of [['tiny', '0.003'], ['roomy', '2']] as const) {
      const credit = await fetch(`${gw.url}/admin/accounts/${account}/credit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount, idempotency_key: account }),
      });
      assert.equal(credit.status, 201);
    }
  });
  after(async () => {
    await gw.stop();
    for (const fake of [claude, gpt, responses, images]) await fake.close();
  });

  it('Chat: the same request is served without its image_url, and refused with it', async () => {
    const text = await openai(TINY).chat.completions.create({ model: 'gpt-4o', max_tokens: 5, messages: [{ role: 'user', content: 'what is this?' }] });
    assert.equal(text.object, 'chat.completion');
    await refused(() =>
      openai(TINY).chat.completions.create({
        model: 'gpt-4o',
        max_tokens: 5,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: IMAGE_URL } }] }],
      }),
    );
  });

  it('Messages: an image block, and a PDF document, by URL', async () => {
    await refused(() =>
      anthropic(TINY).messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 5,
        messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: IMAGE_URL } }, { type: 'text', text: 'what is this?' }] }],
      }),
    );
    await refused(() =>
      anthropic(TINY).messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 5,
        messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: PDF_URL } }, { type: 'text', text: 'summarize' }] }],
      }),
    );
  });

  it('Responses: an input_image', async () => {
    await refused(() =>
      openai(TINY).responses.create({
        model: 'resp-model',
        max_output_tokens: 16,
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'what is this?' }, { type: 'input_image', image_url: IMAGE_URL, detail: 'auto' }] }],
      }),
    );
  });

  it('an image edit: the form file is an image, not 0 tokens', async () => {
    await refused(async () => openai(TINY).images.edit({ model: 'gpt-image-1', image: await toFile(tinyPng(10), 'photo.png', { type: 'image/png' }), prompt: 'add a balloon' }));
  });

  it('an account that covers the budget is served the image and the PDF', async () => {
    const image = await openai(ROOMY).chat.completions.create({
      model: 'gpt-4o',
      max_tokens: 5,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: IMAGE_URL } }] }],
    });
    assert.equal(image.object, 'chat.completion');
    const pdf = await anthropic(ROOMY).messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 5,
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: PDF_URL } }, { type: 'text', text: 'summarize' }] }],
    });
    assert.equal(pdf.type, 'message');
  });
});
