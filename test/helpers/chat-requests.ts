// Talking to the gateway's /v1/chat/completions like a client: posting requests, reading error bodies and streams.

import assert from 'node:assert/strict';
import { TEST_KEY } from './gateway-under-test.js';

/** The `error` object of an OpenAI error body. */
export interface OpenAIError {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** POSTs `body` (sent as is when a string, else as JSON) to `${baseUrl}/v1/chat/completions` with a JSON content type. */
export function postChat(baseUrl: string, body: string | Record<string, unknown>, options: { key?: string; signal?: AbortSignal } = {}): Promise<Response> {
  return fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.key ?? TEST_KEY}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

/** POSTs `body` to any model route with `key` as that route's callers send it (x-api-key on Anthropic's, else Bearer). */
export function postRoute(baseUrl: string, path: string, key: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: path.startsWith('/v1/messages')
      ? { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }
      : { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

/** Parses an error body and checks it is `{ error }` with exactly the four keys of an OpenAI error and a string message. */
export function parseOpenAIError(text: string): OpenAIError {
  const json = JSON.parse(text) as { error: OpenAIError };
  assert.deepEqual(Object.keys(json), ['error']);
  assert.deepEqual(Object.keys(json.error), ['message', 'type', 'param', 'code']);
  assert.equal(typeof json.error.message, 'string');
  return json.error;
}

/** The text of every content delta in an SSE chat completion stream, in order. */
export function streamedContent(sse: string): string {
  let text = '';
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice('data: '.length)) as { choices: { delta?: { content?: string } }[] };
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  return text;
}
