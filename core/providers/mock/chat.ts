// The mock channel's Chat Completions answers: a completion, or a chunk stream ending in [DONE].

import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { UpstreamRequest, UpstreamResponse } from '../provider.js';
import { jsonResponse, sseResponse } from './respond.js';
import { buildMockReply, type MockReply } from './reply.js';

export function answerChat(request: UpstreamRequest, body: Record<string, unknown>): UpstreamResponse {
  const reply = buildMockReply(request.channel, body);
  const id = `chatcmpl-mock${randomBytes(9).toString('hex')}`;
  const created = Math.floor(Date.now() / 1000);
  if (!request.stream) return jsonResponse(completion(id, created, reply));
  const options = body['stream_options'] as { include_usage?: unknown } | null | undefined;
  const includeUsage = options?.include_usage === true;
  return sseResponse(streamChunks(id, created, reply, includeUsage, request.channel.mock.chunkDelayMs, request.abort.signal));
}

function usageOf(reply: MockReply): Record<string, unknown> {
  return {
    prompt_tokens: reply.promptTokens,
    completion_tokens: reply.completionTokens,
    total_tokens: reply.promptTokens + reply.completionTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function completion(id: string, created: number, reply: MockReply): Record<string, unknown> {
  return {
    id,
    object: 'chat.completion',
    created,
    model: reply.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.pieces.join(''), refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: usageOf(reply),
  };
}

async function* streamChunks(
  id: string,
  created: number,
  reply: MockReply,
  includeUsage: boolean,
  delayMs: number,
  signal: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const frame = (choices: unknown[], usage?: unknown): Buffer => {
    const chunk: Record<string, unknown> = { id, object: 'chat.completion.chunk', created, model: reply.model, choices };
    if (includeUsage) chunk['usage'] = usage ?? null;
    return Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`);
  };
  yield frame([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
  for (const piece of reply.pieces) {
    if (delayMs > 0) await sleep(delayMs, undefined, { signal });
    signal.throwIfAborted();
    yield frame([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }]);
  }
  yield frame([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]);
  if (includeUsage) yield frame([], usageOf(reply));
  yield Buffer.from('data: [DONE]\n\n');
}
