// Input a format cannot take is a 400 naming the field, in the route's shape, on every route and channel type:
// the cases that answered 500 (issue 21's probe: `"input":[null]` on the mock channel), natively, translated and
// streamed. Bodies that pass through to a real upstream are not validated deeper than before: its own 400 counts.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { MOCK_MODELS, mockFormatChannels, postAs, type Shape } from '../helpers/fuzz-gateway.js';
import { channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

let upstream: FakeOpenAI;
let gw: GatewayUnderTest;

before(async () => {
  upstream = await new FakeOpenAI('upstream').start();
  gw = await startGatewayUnderTest(configWith(mockFormatChannels() + channel('openai', upstream.url)));
});

after(async () => {
  await gw.stop();
  await upstream.close();
});

interface Refusal {
  readonly message: string;
  readonly param: string | null;
}

/** Posts `body` and reads the 400 it must get, checking the route's error shape. */
async function refusalOf(path: string, shape: Shape, body: unknown): Promise<Refusal> {
  const answer = await postAs(gw.url, path, shape, JSON.stringify(body));
  assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)} -> ${answer.status} ${answer.text}`);
  const json = JSON.parse(answer.text) as Record<string, unknown>;
  const error = json['error'] as Record<string, unknown>;
  if (shape === 'openai') {
    assert.deepEqual(Object.keys(json), ['error']);
    assert.deepEqual(Object.keys(error), ['message', 'type', 'param', 'code']);
    assert.equal(error['type'], 'invalid_request_error');
    return { message: error['message'] as string, param: error['param'] as string | null };
  }
  assert.equal(json['type'], 'error');
  assert.equal(error['type'], 'invalid_request_error');
  return { message: error['message'] as string, param: null };
}

/** Every mock model: native (demo-chat) and through each other format, streamed and not. */
function variants(body: Record<string, unknown>): Record<string, unknown>[] {
  return MOCK_MODELS.flatMap((model) => [false, true].map((stream) => ({ ...body, model, stream })));
}

describe('the probe and its class: 400 naming the field, never 500', () => {
  it('/v1/responses {"input":[null]}: 400 naming input[0], natively, translated, streamed', async () => {
    for (const body of variants({ input: [null] })) {
      const refusal = await refusalOf('/v1/responses', 'openai', body);
      assert.equal(refusal.param, 'input[0]');
      assert.equal(refusal.message, "Invalid type for 'input[0]': expected an object, but got null instead.");
    }
    assert.equal((await refusalOf('/v1/responses/compact', 'openai', { model: 'demo-chat', input: [null] })).param, 'input[0]');
  });

  it('/v1/responses: a null content part, a tool_choice whose type cannot be shown', async () => {
    for (const body of variants({ input: [{ role: 'user', content: [null] }] })) {
      assert.equal((await refusalOf('/v1/responses', 'openai', body)).param, 'input[0].content[0]');
    }
    for (const body of variants({ input: 'hi', tools: [{ type: 'custom', name: 'a' }], tool_choice: [{ toString: null }] })) {
      assert.equal((await refusalOf('/v1/responses', 'openai', body)).param, 'tool_choice');
    }
  });

  it('/v1/chat/completions: a null content part, a tool type that is an object', async () => {
    for (const body of variants({ messages: [{ role: 'user', content: [null] }] })) {
      const refusal = await refusalOf('/v1/chat/completions', 'openai', body);
      assert.equal(refusal.param, 'messages[0].content[0]');
      assert.equal(refusal.message, "Invalid type for 'messages[0].content[0]': expected an object, but got null instead.");
    }
    const tools = [{ type: { toString: 1 }, function: { name: 'a' } }];
    for (const body of variants({ messages: [{ role: 'user', content: 'hi' }], tools })) {
      assert.equal((await refusalOf('/v1/chat/completions', 'openai', body)).param, 'tools[0].type');
    }
  });

  it('/v1/messages and count_tokens: Anthropic\'s words, naming the field', async () => {
    for (const body of variants({ max_tokens: 5, messages: [{ role: 'user', content: [null] }] })) {
      assert.equal((await refusalOf('/v1/messages', 'anthropic', body)).message, 'messages.0.content.0: Input should be a valid dictionary');
    }
    for (const body of variants({ max_tokens: 5, messages: [{ role: 'user', content: 'hi' }], system: [null] })) {
      assert.equal((await refusalOf('/v1/messages', 'anthropic', body)).message, 'system.0: Input should be a valid dictionary');
    }
    const count = { model: 'demo-chat', messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: 5 }] }] };
    assert.equal((await refusalOf('/v1/messages/count_tokens', 'anthropic', count)).message, 'messages.0.content.0.input: Input should be a valid dictionary');
  });
});

describe('native pass-through to a real upstream', () => {
  it('forwards a body deep fields of which are wrong byte for byte: the upstream judges it', async () => {
    const before = upstream.requests.length;
    const body = '{"model":"gpt-4o","messages":[{"role":"user","content":[null,{"type":"text","text":5}]}]}';
    const answer = await postAs(gw.url, '/v1/chat/completions', 'openai', body);
    assert.equal(answer.status, 200, 'the fake upstream accepts anything');
    assert.equal(upstream.requests[before]?.raw.toString(), body);
  });
});
