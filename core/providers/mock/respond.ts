// How the mock hands back an answer: the same UpstreamResponse shape a remote upstream produces.

import type { RenderedError } from '../../formats/format.js';
import type { UpstreamResponse } from '../provider.js';

async function* single(chunk: Uint8Array): AsyncGenerator<Uint8Array> {
  yield chunk;
}

export function jsonResponse(value: unknown, status = 200): UpstreamResponse {
  const body = Buffer.from(JSON.stringify(value));
  return { status, headers: { 'content-type': 'application/json' }, body: single(body), discard: async () => {} };
}

export function sseResponse(body: AsyncIterable<Uint8Array>): UpstreamResponse {
  return { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' }, body, discard: async () => {} };
}

/** An error as the API renders it (status, headers, body). */
export function renderedResponse(error: RenderedError): UpstreamResponse {
  return { status: error.status, headers: error.headers, body: single(Buffer.from(error.body)), discard: async () => {} };
}
