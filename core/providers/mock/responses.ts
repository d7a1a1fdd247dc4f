// The mock channel's Responses answers: a response object, the full event stream (created, in_progress, the
// message item added and done, content part, text deltas, completed with usage, monotonic sequence_number),
// and /compact (the user messages kept, one compaction item).

import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { field } from '../../formats/json-fields.js';
import type { UpstreamRequest, UpstreamResponse } from '../provider.js';
import { jsonResponse, sseResponse } from './respond.js';
import { buildMockReply, type MockReply } from './reply.js';

const NO_FIELDS: Readonly<Record<string, unknown>> = {};

/** The mock's reply reads `messages`; Responses calls them `input` (a string or items). */
function asMessages(body: Record<string, unknown>): Record<string, unknown> {
  const input = body['input'];
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
  // Items without a role (tool calls and outputs, reasoning) count as no message. `field`: an item the format
  // decoder let through unread (after one the IR cannot carry) may be anything.
  const messages = (items as unknown[]).map((item) => ({ role: field(item, 'role'), content: field(item, 'content') }));
  return { model: body['model'], messages, system: body['instructions'] };
}

function usageOf(reply: MockReply): Record<string, unknown> {
  return {
    input_tokens: reply.promptTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: reply.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: reply.promptTokens + reply.completionTokens,
  };
}

function responseObject(id: string, reply: MockReply, status: string, output: unknown[], usage: unknown): Record<string, unknown> {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: reply.model,
    output,
    store: false,
    error: null,
    incomplete_details: null,
    usage,
  };
}

function messageItem(id: string, text: string, status: string): Record<string, unknown> {
  return { type: 'message', id, role: 'assistant', status, content: text === '' && status !== 'completed' ? [] : [{ type: 'output_text', text, annotations: [] }] };
}

export function answerResponses(request: UpstreamRequest, body: Record<string, unknown>): UpstreamResponse {
  const reply = buildMockReply(request.channel, asMessages(body));
  const id = `resp_mock${randomBytes(9).toString('hex')}`;
  const itemId = `msg_mock${randomBytes(9).toString('hex')}`;
  const text = reply.pieces.join('');
  if (!request.stream) return jsonResponse(responseObject(id, reply, 'completed', [messageItem(itemId, text, 'completed')], usageOf(reply)));
  return sseResponse(streamEvents(id, itemId, reply, request.channel.mock.chunkDelayMs, request.abort.signal));
}

async function* streamEvents(id: string, itemId: string, reply: MockReply, delayMs: number, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>, at: Readonly<Record<string, unknown>> = NO_FIELDS): Buffer =>
    Buffer.from(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...at, ...fields })}\n\n`);
  const text = reply.pieces.join('');
  const at = { item_id: itemId, output_index: 0, content_index: 0 };
  yield event('response.created', { response: responseObject(id, reply, 'in_progress', [], null) });
  yield event('response.in_progress', { response: responseObject(id, reply, 'in_progress', [], null) });
  yield event('response.output_item.added', { output_index: 0, item: messageItem(itemId, '', 'in_progress') });
  yield event('response.content_part.added', { part: { type: 'output_text', text: '', annotations: [] } }, at);
  for (const piece of reply.pieces) {
    if (delayMs > 0) await sleep(delayMs, undefined, { signal });
    signal.throwIfAborted();
    yield event('response.output_text.delta', { delta: piece, logprobs: [] }, at);
  }
  yield event('response.output_text.done', { text, logprobs: [] }, at);
  yield event('response.content_part.done', { part: { type: 'output_text', text, annotations: [] } }, at);
  const done = messageItem(itemId, text, 'completed');
  yield event('response.output_item.done', { output_index: 0, item: done });
  yield event('response.completed', { response: responseObject(id, reply, 'completed', [done], usageOf(reply)) });
}

/** Keeps the user messages and appends one opaque compaction item, as the real endpoint does. */
export function answerCompact(request: UpstreamRequest, body: Record<string, unknown>): UpstreamResponse {
  const reply = buildMockReply(request.channel, asMessages(body));
  const input = Array.isArray(body['input']) ? (body['input'] as unknown[]) : [];
  const kept = input.filter((item) => field(item, 'role') === 'user');
  const summary = Buffer.from(`mock compaction of ${input.length} items`).toString('base64');
  return jsonResponse({
    id: `resp_mock${randomBytes(9).toString('hex')}`,
    object: 'response.compaction',
    created_at: Math.floor(Date.now() / 1000),
    output: [...kept, { type: 'compaction', id: `cmp_mock${randomBytes(6).toString('hex')}`, encrypted_content: summary }],
    usage: usageOf(reply),
  });
}
