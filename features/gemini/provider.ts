// The `gemini` channel type: Google's Gemini API (generativelanguage.googleapis.com), the channel's key in
// x-goog-api-key, the client's end-to-end headers forwarded (never the caller's key, which forward-headers.ts keeps
// back), its models read from its paged `GET /v1beta/models`, and the wait a 429 asks for (in its body) told as
// retry-after.

import { addChannelHeaders, createHttpProvider, setBaseHeaders } from '../../core/providers/http-upstream.js';
import { forwardableHeaders } from '../../core/providers/forward-headers.js';
import { DiscoveryFailure, listHeaders, MAX_MODEL_IDS, type ModelListReader, type UpstreamGet } from '../../core/providers/model-discovery.js';
import type { Provider, UpstreamRequest, UpstreamResponse } from '../../core/providers/provider.js';
import { readBody } from '../../core/providers/read-body.js';
import { bodyRetryDelay } from './ir-error.js';

/** Google's largest page; a few pages hold every model it has. */
const PAGE_SIZE = 1000;
const MAX_PAGES = 20;

/**
 * Google's control headers a caller must not set on the channel's calls: a field mask (which could strip the usage the
 * request is billed from), another project to bill, a method override. Of Google's own `x-goog-*` headers only the
 * client's name (`x-goog-api-client`) goes on.
 */
function isControlHeader(name: string): boolean {
  return (name.startsWith('x-goog-') && name !== 'x-goog-api-client') || name === 'x-http-method-override';
}

function geminiHeaders(request: UpstreamRequest): Record<string, string> {
  const forwarded = forwardableHeaders(request.clientHeaders);
  for (const name in forwarded) if (isControlHeader(name)) delete forwarded[name];
  const headers = setBaseHeaders(addChannelHeaders(forwarded, request), request);
  if (request.key !== '') headers['x-goog-api-key'] = request.key;
  return headers;
}

/** `{"models":[{"name":"models/gemini-2.5-pro", ...}], "nextPageToken"}`: ids without the `models/` prefix. */
export const readGeminiModels: ModelListReader = async (get: UpstreamGet, channel, key) => {
  const headers = listHeaders(channel, key === '' ? {} : { 'x-goog-api-key': key });
  const ids: string[] = [];
  let token: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const json: unknown = await get(`/v1beta/models?pageSize=${PAGE_SIZE}${token === null ? '' : `&pageToken=${encodeURIComponent(token)}`}`, headers);
    const body = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
    const models = body?.['models'] ?? [];
    if (body === null || !Array.isArray(models)) throw new DiscoveryFailure('the answer is not a Gemini model list (no models array)');
    for (const model of models as unknown[]) {
      const name = typeof model === 'object' && model !== null ? (model as Record<string, unknown>)['name'] : undefined;
      if (typeof name !== 'string' || !name.startsWith('models/') || name.length <= 7 || name.length > 256) continue;
      if (ids.length === MAX_MODEL_IDS) throw new DiscoveryFailure(`more than ${MAX_MODEL_IDS} models`);
      ids.push(name.slice(7));
    }
    const next = body['nextPageToken'];
    if (typeof next !== 'string' || next === '') return ids;
    if (next === token) throw new DiscoveryFailure('nextPageToken repeats');
    token = next;
  }
  throw new DiscoveryFailure(`more than ${MAX_PAGES} pages`);
};

/** The statuses whose wait the relay tells the client (plugins/relay/last-failure.ts), from retry-after alone. */
const WAIT_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** Far more than any error body of Google's. */
const ERROR_BODY_MAX = 64 * 1024;

async function* bytes(body: Buffer): AsyncGenerator<Uint8Array> {
  yield body;
}

/**
 * Google says how long to wait only in the body (RetryInfo's retryDelay: "7s", "45.837906927s"), never in a
 * Retry-After header, and the relay drops the body of a status that fails a channel: the wait is put in the header,
 * where the relay reads it (and every client's error tells it). The body is read here, and given again as it came.
 */
export async function withRetryAfter(res: UpstreamResponse): Promise<UpstreamResponse> {
  if (!WAIT_STATUSES.has(res.status) || res.headers['retry-after'] !== undefined) return res;
  let body: Buffer;
  try {
    body = await readBody(res.body, ERROR_BODY_MAX);
  } catch {
    // Broken off, or too large to be Google's: it names no wait, and the relay drops it anyway.
    body = Buffer.alloc(0);
  }
  const delay = bodyRetryDelay(body);
  const headers = delay === null ? res.headers : Object.assign({}, res.headers, { 'retry-after': String(delay) });
  return { status: res.status, headers, body: bytes(body), discard: () => Promise.resolve() };
}

export function createGeminiProvider(): Provider {
  const http = createHttpProvider(geminiHeaders, readGeminiModels);
  return Object.assign({}, http, { send: (request: UpstreamRequest) => http.send(request).then(withRetryAfter) });
}
