// What the mock channel answers on the Gemini routes, offline (a demo of Gemini CLI with no network): the last user
// text echoed, as one response or as SSE events (or the JSON array of a stream asked for without alt=sse), with
// usage counted the mock's way (about four characters a token), and countTokens.

import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../../core/errors.js';
import { jsonResponse, sseResponse } from '../../core/providers/mock/respond.js';
import type { MockAnswer, UpstreamRequest } from '../../core/providers/provider.js';
import { listOf } from './lenient-json.js';
import { sseAsked } from './request.js';

type Json = Record<string, unknown>;

/** Roughly four characters a token, like the mock's other APIs. */
function tokensOf(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function textOf(content: unknown): string {
  if (typeof content !== 'object' || content === null) return '';
  return listOf((content as Json)['parts'])
    .map((part) => (typeof part === 'object' && part !== null && typeof (part as Json)['text'] === 'string' ? ((part as Json)['text'] as string) : ''))
    .join(' ');
}

function lastTextOf(content: unknown): string {
  if (typeof content !== 'object' || content === null) return '';
  const texts = listOf((content as Json)['parts']).filter((part) => typeof part === 'object' && part !== null && typeof (part as Json)['text'] === 'string');
  return texts.length === 0 ? '' : ((texts.at(-1) as Json)['text'] as string);
}

interface Counted {
  readonly prompt: number;
  readonly lastUser: string;
}

function countPrompt(body: Json): Counted {
  const contents = listOf(body['contents']);
  const system = body['systemInstruction'] ?? body['system_instruction'];
  let prompt = system === undefined ? 0 : tokensOf(textOf(system));
  let lastUser = '';
  for (const content of contents) {
    const text = textOf(content);
    prompt += tokensOf(text) + 3;
    const role = typeof content === 'object' && content !== null ? (content as Json)['role'] : undefined;
    // The last text part: Gemini CLI puts its session context before what the user typed, in one content.
    const last = lastTextOf(content);
    if (role !== 'model' && last !== '') lastUser = last;
  }
  return { prompt, lastUser };
}

/** The model and method a call names: `/v1beta/models/{model}:{method}`. */
function callOf(path: string): { readonly model: string; readonly method: string } {
  const last = path.slice(path.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  return { model: decodeURIComponent(last.slice(0, colon)), method: last.slice(colon + 1) };
}

function parsed(request: UpstreamRequest): Json {
  try {
    const body: unknown = JSON.parse(request.body.joined().toString('utf8'));
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Json;
  } catch {
    // Worded below.
  }
  throw new GatewayError('GW_ERR_INTERNAL', 'the mock channel got a body that is not a JSON object');
}

export const answerGemini: MockAnswer = (request) => {
  const body = parsed(request);
  const { model, method } = callOf(request.path);
  const { prompt, lastUser } = countPrompt(body);
  if (method === 'countTokens') {
    const inner = body['generateContentRequest'] ?? body['generate_content_request'];
    return Promise.resolve(jsonResponse({ totalTokens: inner === undefined ? prompt : countPrompt(inner as Json).prompt }));
  }
  const echo = lastUser.length > 200 ? `${lastUser.slice(0, 200)}...` : lastUser;
  const text = request.channel.mock.reply ?? `Hello from the mock channel! You said: "${echo}"`;
  const pieces = text.match(/\S+\s*|\s+/g) ?? [text];
  const usage = { promptTokenCount: prompt, candidatesTokenCount: pieces.length, totalTokenCount: prompt + pieces.length };
  const responseId = `mock${randomBytes(9).toString('hex')}`;
  const answer = (parts: readonly Json[], last: boolean): Json => ({
    candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
    usageMetadata: last ? usage : { promptTokenCount: prompt, totalTokenCount: prompt },
    modelVersion: model,
    responseId,
  });
  if (method === 'generateContent') return Promise.resolve(jsonResponse(answer([{ text }], true)));
  const events = pieces.map((piece, i) => answer([{ text: piece }], i === pieces.length - 1));
  if (!sseAsked(request.query)) return Promise.resolve(jsonResponse(events));
  return Promise.resolve(sseResponse(streamed(events, request.channel.mock.chunkDelayMs, request.abort.signal)));
};

async function* streamed(events: readonly Json[], delayMs: number, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  for (const event of events) {
    if (delayMs > 0) await sleep(delayMs, undefined, { signal });
    signal.throwIfAborted();
    yield Buffer.from(`data: ${JSON.stringify(event)}\r\n\r\n`);
  }
}
