// translateStream's own duties beside the codecs: keepalive comments reach the client, and an upstream stream that
// ends before its terminal event becomes the client's in-band error, written by its encoder (Responses keeps
// numbering its events), with the relay told once.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../../core/errors.js';
import { codecFor } from '../../../core/formats/codecs.js';
import { StreamTranslation, type TranslatedStreamHooks } from '../../../core/formats/translate-stream.js';
import type { ChatRequest } from '../../../core/ir/request.js';
import { frameBatches } from '../../../core/sse/frame-batches.js';
import { splitSse } from '../../helpers/sse-text.js';

const REQUEST: ChatRequest = {
  model: 'm',
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  toolChoice: null,
  parallelToolCalls: null,
  maxTokens: null,
  temperature: null,
  topP: null,
  stop: [],
  responseFormat: null,
  reasoning: null,
  stream: true,
  conversation: null,
};

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text, 'utf8');
}

async function run(upstream: string, client: 'anthropic-messages' | 'openai-responses', hooks: TranslatedStreamHooks): Promise<string> {
  const out: Buffer[] = [];
  const frames = frameBatches(bytes(upstream), new StreamTranslation(codecFor('openai-chat'), codecFor(client), REQUEST, hooks));
  for await (const batch of frames) for (const frame of batch) out.push(Buffer.from(frame.raw));
  return Buffer.concat(out).toString('utf8');
}

const NEVER: TranslatedStreamHooks = {
  onUpstreamError: (error) => assert.fail(`unexpected upstream error ${error.message}`),
  onBroken: (err) => assert.fail(`unexpected break ${String(err)}`),
};

test('keepalive comments of the upstream reach the client between translated frames', async () => {
  const upstream = `${chunk({ role: 'assistant', content: '' })}: keepalive\n\n${chunk({ content: 'Hi' })}${chunk({}, 'stop')}data: [DONE]\n\n`;
  const text = await run(upstream, 'anthropic-messages', NEVER);
  assert.match(text, /^: keepalive\n\n/m);
  const events = splitSse(text).map((f) => f.event);
  assert.deepEqual(events.filter((e) => e !== null).at(-1), 'message_stop');
  assert.ok(text.indexOf(': keepalive') < text.indexOf('event: content_block_delta'), 'the comment keeps its place');
});

test('a stream that ends before its finish becomes the Responses in-band error, numbered on, and the relay is told once', async () => {
  const told: unknown[] = [];
  const hooks: TranslatedStreamHooks = {
    onUpstreamError: (error) => assert.fail(`not an upstream error: ${error.message}`),
    onBroken: (err) => {
      told.push(err);
      return err instanceof GatewayError ? err : new GatewayError('GW_ERR_UPSTREAM_STREAM_BROKEN', 'broken');
    },
  };
  const text = await run(`${chunk({ role: 'assistant', content: '' })}${chunk({ content: 'Par' })}`, 'openai-responses', hooks);
  assert.equal(told.length, 1);
  assert.ok(told[0] instanceof GatewayError && told[0].code === 'GW_ERR_UPSTREAM_STREAM_BROKEN');
  const frames = splitSse(text).map((f) => ({ event: f.event, data: JSON.parse(f.data ?? '{}') as Record<string, unknown> }));
  const types = frames.map((f) => f.event);
  assert.deepEqual(types.slice(-2), ['error', 'response.failed']);
  assert.ok(types.includes('response.output_text.delta'), 'the text so far was delivered');
  assert.deepEqual(
    frames.map((f) => f.data['sequence_number']),
    frames.map((_, i) => i),
    'sequence numbers run on through the error frames',
  );
});

test('a client that went away is not written to: onBroken rethrowing ends the translated stream with that error', async () => {
  const gone = new Error('aborted');
  const hooks: TranslatedStreamHooks = {
    onUpstreamError: () => assert.fail('not an upstream error'),
    onBroken: () => {
      throw gone;
    },
  };
  await assert.rejects(run(chunk({ content: 'x' }), 'anthropic-messages', hooks), (err) => err === gone);
});

test('a stream cut inside its last frame (no blank line, no finish) delivers that frame before the in-band error', async () => {
  const hooks: TranslatedStreamHooks = {
    onUpstreamError: (error) => assert.fail(`not an upstream error: ${error.message}`),
    onBroken: (err) => (err instanceof GatewayError ? err : new GatewayError('GW_ERR_UPSTREAM_STREAM_BROKEN', 'broken')),
  };
  // The last frame's blank line never came: the parser hands it over at the end, then the translation finds
  // no finish and reports the break.
  const cut = `${chunk({ role: 'assistant', content: '' })}${chunk({ content: 'Hello' }).trimEnd()}`;
  const text = await run(cut, 'anthropic-messages', hooks);
  const events = splitSse(text).map((f) => f.event);
  assert.ok(text.includes('"text":"Hello"'), text);
  assert.equal(events.at(-1), 'error');
  assert.ok(text.indexOf('"text":"Hello"') < text.indexOf('event: error'), 'the text comes before the error');
});
