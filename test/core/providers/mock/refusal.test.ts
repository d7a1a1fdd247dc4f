// The mock channel refuses a body its API would refuse, with the 400 its API answers (in that API's error shape,
// naming the field), and answers what only the IR cannot carry like any other body.

import assert from 'node:assert/strict';
import { readBody } from '../../../../core/providers/read-body.js';
import { describe, it } from 'node:test';
import type { ResolvedChannel } from '../../../../core/config/resolved.js';
import { BodyBytes } from '../../../../core/formats/body-bytes.js';
import { ClientAbort } from '../../../../core/client-abort.js';
import { createMockProvider } from '../../../../core/providers/mock/index.js';
import { MockImageFiles } from '../../../../core/providers/mock/image-files.js';
import { BUILTIN_ENDPOINTS } from '../../../../features/index.js';
import type { UpstreamResponse } from '../../../../core/providers/provider.js';

const CHANNEL: ResolvedChannel = {
  name: 'demo',
  type: 'mock',
  formats: ['openai-chat', 'openai-responses', 'anthropic-messages'],
  dialect: 'openai-chat',
  dropParams: [],
  baseUrl: null,
  keys: [],
  models: { patterns: ['demo-chat'], aliases: new Map() },
  priority: 0,
  weight: 1,
  timeoutMs: 1000,
  idleTimeoutMs: 1000,
  cooldownMs: 0,
  health: { errors: 5, window: 10, probeAfterMs: 30_000, probeMaxMs: 600_000 },
  modelsRefreshMs: 0,
  headers: {},
  mock: { chunkDelayMs: 0, reply: null },
};

async function send(path: string, body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res: UpstreamResponse = await createMockProvider(new MockImageFiles(), BUILTIN_ENDPOINTS).send({
    channel: CHANNEL,
    key: '',
    path,
    query: '',
    clientHeaders: {},
    body: BodyBytes.of(Buffer.from(JSON.stringify({ model: 'demo-chat', ...body }), 'utf8')),
    stream: false,
    abort: new ClientAbort(),
  });
  const whole = await readBody(res.body);
  assert.equal(res.headers['content-type'], 'application/json');
  return { status: res.status, json: JSON.parse(whole.toString('utf8')) as Record<string, unknown> };
}

describe('the mock channel refuses what its API would', () => {
  it('answers OpenAI\'s 400 on the OpenAI paths, naming the field', async () => {
    const chat = await send('/v1/chat/completions', { messages: [{ role: 'user', content: [null] }] });
    assert.equal(chat.status, 400);
    assert.deepEqual(chat.json, {
      error: {
        message: "Invalid type for 'messages[0].content[0]': expected an object, but got null instead.",
        type: 'invalid_request_error',
        param: 'messages[0].content[0]',
        code: 'invalid_value',
      },
    });
    const responses = await send('/v1/responses', { input: [{ role: 'user', content: [{ type: 'input_text' }] }] });
    assert.equal(responses.status, 400);
    assert.equal((responses.json['error'] as { param: unknown }).param, 'input[0].content[0].text');
    const compact = await send('/v1/responses/compact', { input: [null] });
    assert.equal((compact.json['error'] as { param: unknown }).param, 'input[0]');
  });

  it('answers Anthropic\'s 400 on the Anthropic paths', async () => {
    const messages = await send('/v1/messages', { max_tokens: 5, messages: [{ role: 'user', content: [null] }] });
    assert.equal(messages.status, 400);
    assert.deepEqual(messages.json, {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'messages.0.content.0: Input should be a valid dictionary' },
    });
    const count = await send('/v1/messages/count_tokens', { messages: [{ role: 'user', content: 'x' }], system: [5] });
    assert.equal(count.status, 400);
    assert.match((count.json['error'] as { message: string }).message, /^system\.0: /);
  });

  it('answers what only the IR cannot carry, and bodies it can take', async () => {
    const document = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } };
    const messages = await send('/v1/messages', { max_tokens: 5, messages: [{ role: 'user', content: [document, { type: 'text', text: 'hi' }] }] });
    assert.equal(messages.status, 200);
    assert.equal(messages.json['type'], 'message');
    const compaction = await send('/v1/responses', { input: [{ type: 'compaction', encrypted_content: 'E' }, { role: 'user', content: 'hi' }] });
    assert.equal(compaction.status, 200);
    assert.equal(compaction.json['object'], 'response');
  });
});
