// One output-cap reader per wire format (issue 40, finding 1): each API's route reserves the cap its upstream
// honours (Chat: the larger of max_completion_tokens and max_tokens; Messages: max_tokens; Responses:
// max_output_tokens; /responses/compact and images: none), whatever other cap fields the body names, and a
// translated request carries upstream the very cap it reserved. Output costs 1,000 nano-units a token, input
// nothing; the account holds 2,000 tokens' worth, so a cap of 100,000 is refused with 402 and no upstream call,
// and a cap of 50 is served.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { FakeAnthropic, anthropicChannel } from '../helpers/fake-anthropic.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { FakeOpenAIImages } from '../helpers/fake-openai-images.js';
import { FakeResponses } from '../helpers/fake-responses.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN = 'test-admin-token-0123456789';
const KEY = 'sk-caps-0123456789abcdefghij';
/** A key of no account, capped by its max_spend alone (1,000 tokens' worth). */
const CAPPED = 'sk-caps-capped-0123456789abcd';
const BIG = 100_000;
const SMALL = 50;
const CAP_FIELDS = ['max_completion_tokens', 'max_tokens', 'max_output_tokens'] as const;
type CapField = (typeof CAP_FIELDS)[number];

interface Route {
  readonly name: string;
  readonly path: string;
  readonly model: string;
  /** The fields this route's upstream honours as its output cap. */
  readonly honoured: readonly CapField[];
  /** A body without any cap field. */
  readonly body: Record<string, unknown>;
}

// Each route on a channel of its own API, so the body goes upstream as sent.
const NATIVE: readonly Route[] = [
  { name: 'chat', path: '/v1/chat/completions', model: 'gpt-4o', honoured: ['max_completion_tokens', 'max_tokens'], body: { messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'messages', path: '/v1/messages', model: 'claude-sonnet-4-5', honoured: ['max_tokens'], body: { messages: [{ role: 'user', content: 'hi' }] } },
  { name: 'responses', path: '/v1/responses', model: 'resp-model', honoured: ['max_output_tokens'], body: { input: 'hi' } },
  { name: 'responses/compact', path: '/v1/responses/compact', model: 'resp-model', honoured: [], body: { input: 'hi' } },
  { name: 'images/generations', path: '/v1/images/generations', model: 'gpt-image-1', honoured: [], body: { prompt: 'a cat' } },
];

describe('the output cap each API reserves', () => {
  const claude = new FakeAnthropic('claude');
  const gpt = new FakeOpenAI('gpt');
  const responses = new FakeResponses('resp');
  const images = new FakeOpenAIImages('img');
  let gw: GatewayUnderTest;

  const send = (path: string, body: Record<string, unknown>): Promise<Response> =>
    fetch(`${gw.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const upstreamCalls = (): number => claude.requests.length + gpt.requests.length + responses.requests.length + images.requests.length;

  before(async () => {
    await claude.start();
    await gpt.start();
    await responses.start();
    await images.start();
    gw = await startGatewayUnderTest(`server: { port: 0, host: 127.0.0.1, admin_token: ${ADMIN} }
store: { url: "sqlite:./gateway.db" }
pricing:
  default_output_reserve: 10
  models:
    # The image model's answer is image tokens, free here: only a reserved text cap could cost anything.
    "gpt-image-*": { input: 0, output: 1.00, output_image: 0 }
    "*": { input: 0, output: 1.00 }
groups:
  pro: { models: ["*"] }
accounts:
  - name: tiny
keys:
  - { name: metered, key: ${KEY}, group: pro, account: tiny }
  - { name: capped, key: ${CAPPED}, group: pro, max_spend: "0.001" }
channels:
${anthropicChannel('claude', claude.url)}  - { name: gpt, type: openai, base_url: "${gpt.url}", keys: [sk-oai], models: ["gpt-*"], formats: [openai-chat] }
  - { name: resp, type: openai, base_url: "${responses.url}", keys: [sk-resp], models: ["resp-*"], formats: [openai-responses] }
  - { name: img, type: openai, base_url: "${images.url}", keys: [sk-img], models: ["gpt-image-*"], formats: [openai-images] }
`);
    const credit = await fetch(`${gw.url}/admin/accounts/tiny/credit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '0.002', idempotency_key: 'start' }),
    });
    assert.equal(credit.status, 201);
  });
  beforeEach(() => {
    claude.requests.length = 0;
    gpt.requests.length = 0;
    responses.requests.length = 0;
    images.requests.length = 0;
  });
  after(async () => {
    await gw.stop();
    await claude.close();
    await gpt.close();
    await responses.close();
    await images.close();
  });

  for (const route of NATIVE) {
    for (const field of CAP_FIELDS) {
      const honoured = route.honoured.includes(field);
      it(`${route.name}: ${field} ${BIG} with every other cap field at 1 is ${honoured ? 'reserved, and refused with 402' : 'not what its upstream honours, and served'}`, async () => {
        const body: Record<string, unknown> = { model: route.model, ...route.body };
        // Messages requires max_tokens: it is always named, 1 unless it is the field under test.
        for (const other of CAP_FIELDS) if (other !== field && (route.honoured.includes(other) || other === 'max_tokens' && route.name === 'messages')) body[other] = 1;
        body[field] = BIG;
        const res = await send(route.path, body);
        const text = await res.text();
        if (honoured) {
          assert.equal(res.status, 402, text);
          assert.match(text, route.name === 'messages' ? /billing_error/ : /insufficient_balance/);
          assert.equal(upstreamCalls(), 0, 'a refused request reaches no upstream');
        } else {
          assert.equal(res.status, 200, text);
          assert.equal(upstreamCalls(), 1);
        }
      });
    }
  }

  it('/v1/messages with max_tokens 100000 and max_completion_tokens 1 is reserved at 100000: 402, no upstream call', async () => {
    const res = await send('/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: BIG, max_completion_tokens: 1, messages: [{ role: 'user', content: 'hi' }] });
    const body = (await res.json()) as { type: string; error: { type: string } };
    assert.equal(res.status, 402);
    assert.deepEqual([body.type, body.error.type], ['error', 'billing_error']);
    assert.equal(upstreamCalls(), 0);
  });

  it("a key's max_spend: /v1/messages with max_tokens 100000 and max_completion_tokens 1 is refused, max_tokens 500 served", async () => {
    const messages = (body: Record<string, unknown>): Promise<Response> =>
      fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': CAPPED, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }], ...body }),
      });
    const refused = await messages({ max_tokens: BIG, max_completion_tokens: 1 });
    assert.equal(refused.status, 402, await refused.text());
    assert.equal(upstreamCalls(), 0);
    const served = await messages({ max_tokens: 500, max_completion_tokens: BIG });
    assert.equal(served.status, 200, await served.text());
    assert.equal(upstreamCalls(), 1);
  });

  // Translated: the cap the upstream is sent, in its own API's field, is the one reserved.
  const translated: readonly { readonly what: string; readonly path: string; readonly body: Record<string, unknown>; readonly sent: () => Record<string, unknown> | undefined; readonly field: string }[] = [
    { what: 'chat on Messages: the larger of the two', path: '/v1/chat/completions', body: { model: 'claude-sonnet-4-5', max_tokens: SMALL, max_completion_tokens: 1, messages: [{ role: 'user', content: 'hi' }] }, sent: () => claude.requests[0]?.body, field: 'max_tokens' },
    { what: 'messages on Chat: max_tokens, not max_completion_tokens', path: '/v1/messages', body: { model: 'gpt-4o', max_tokens: SMALL, max_completion_tokens: BIG, messages: [{ role: 'user', content: 'hi' }] }, sent: () => gpt.requests[0]?.body, field: 'max_completion_tokens' },
    { what: 'responses on Messages: max_output_tokens, not max_tokens', path: '/v1/responses', body: { model: 'claude-sonnet-4-5', max_output_tokens: SMALL, max_tokens: BIG, input: 'hi' }, sent: () => claude.requests[0]?.body, field: 'max_tokens' },
    { what: 'responses on Chat', path: '/v1/responses', body: { model: 'gpt-4o', max_output_tokens: SMALL, max_completion_tokens: BIG, input: 'hi' }, sent: () => gpt.requests[0]?.body, field: 'max_completion_tokens' },
  ];
  for (const c of translated) {
    it(`${c.what}: reserved and sent upstream as ${SMALL}`, async () => {
      const res = await send(c.path, c.body);
      assert.equal(res.status, 200, await res.text());
      const sent = c.sent();
      assert.equal(sent?.[c.field], SMALL, JSON.stringify(sent));
      for (const other of CAP_FIELDS) if (other !== c.field) assert.equal(sent?.[other], undefined, `${other} is not sent: ${JSON.stringify(sent)}`);
    });
  }

  // Translated and naming no cap: reserved at default_output_reserve (10), which is then the cap sent upstream,
  // rather than Anthropic's required max_tokens at the gateway's own default, or no cap at all.
  const uncapped: readonly { readonly what: string; readonly path: string; readonly body: Record<string, unknown>; readonly sent: () => Record<string, unknown> | undefined; readonly field: string }[] = [
    { what: 'chat on Messages', path: '/v1/chat/completions', body: { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }, sent: () => claude.requests[0]?.body, field: 'max_tokens' },
    { what: 'responses on Chat', path: '/v1/responses', body: { model: 'gpt-4o', input: 'hi' }, sent: () => gpt.requests[0]?.body, field: 'max_completion_tokens' },
    { what: 'responses on Messages', path: '/v1/responses', body: { model: 'claude-sonnet-4-5', input: 'hi' }, sent: () => claude.requests[0]?.body, field: 'max_tokens' },
  ];
  for (const c of uncapped) {
    it(`${c.what} without a cap: sent upstream with the cap reserved, default_output_reserve`, async () => {
      const res = await send(c.path, c.body);
      assert.equal(res.status, 200, await res.text());
      assert.equal(c.sent()?.[c.field], 10, JSON.stringify(c.sent()));
    });
  }

  it('chat on Messages with max_tokens 100000 and max_completion_tokens 1: the larger is reserved, 402, no upstream call', async () => {
    const res = await send('/v1/chat/completions', { model: 'claude-sonnet-4-5', max_tokens: BIG, max_completion_tokens: 1, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(res.status, 402, await res.text());
    assert.equal(upstreamCalls(), 0);
  });
});
