// The mock channel's Anthropic Messages answers: a message, an event stream as the real API sends it
// (event: lines, message_start usage, ping, cumulative message_delta usage, message_stop), and count_tokens.

import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { UpstreamRequest, UpstreamResponse } from '../provider.js';
import { jsonResponse, sseResponse } from './respond.js';
import { buildMockReply, countPromptTokens, type MockReply } from './reply.js';

export function answerCountTokens(body: Record<string, unknown>): UpstreamResponse {
  return jsonResponse({ input_tokens: countPromptTokens(body) });
}

export function answerMessages(request: UpstreamRequest, body: Record<string, unknown>): UpstreamResponse {
  const reply = buildMockReply(request.channel, body);
  const id = `msg_mock${randomBytes(9).toString('hex')}`;
  if (!request.stream) {
    return jsonResponse(
      Object.assign(messageShell(id, reply), {
        content: [{ type: 'text', text: reply.pieces.join('') }],
        stop_reason: 'end_turn',
        usage: usageOf(reply, reply.completionTokens),
      }),
    );
  }
  return sseResponse(streamEvents(id, reply, request.channel.mock.chunkDelayMs, request.abort.signal));
}

function messageShell(id: string, reply: MockReply): Record<string, unknown> {
  return { id, type: 'message', role: 'assistant', model: reply.model, content: [], stop_reason: null, stop_sequence: null };
}

function usageOf(reply: MockReply, output: number): Record<string, unknown> {
  return { input_tokens: reply.promptTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output };
}

function event(name: string, data: unknown): Buffer {
  return Buffer.from(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}

async function* streamEvents(id: string, reply: MockReply, delayMs: number, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  yield event('message_start', { type: 'message_start', message: Object.assign(messageShell(id, reply), { usage: usageOf(reply, 1) }) });
  yield event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  yield event('ping', { type: 'ping' });
  for (const piece of reply.pieces) {
    if (delayMs > 0) await sleep(delayMs, undefined, { signal });
    signal.throwIfAborted();
    yield event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
  }
  yield event('content_block_stop', { type: 'content_block_stop', index: 0 });
  yield event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: reply.completionTokens },
  });
  yield event('message_stop', { type: 'message_stop' });
}
