// Reading an upstream's model list (GET /v1/models) for the model catalog: a bounded JSON GET, the OpenAI list
// and Anthropic's cursor pages. Every failure is a DiscoveryFailure whose message is a short reason safe to log
// (a status or a cause; never the key, never the upstream's body).

import { errors as undiciErrors, type Dispatcher } from 'undici';
import { readBody } from './read-body.js';
import { isRedirect, redirectRefused } from './upstream-redirect.js';
import type { ResolvedChannel } from '../config/resolved.js';

/** A real list is a few hundred KB at most; these bounds stop a broken or hostile upstream from costing more. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_MODEL_IDS = 10_000;
const MAX_ID_BYTES = 256;
/** Anthropic's largest page; ten of them hold MAX_MODEL_IDS, so more pages is a cursor going round. */
const ANTHROPIC_PAGE_SIZE = 1000;
const MAX_ANTHROPIC_PAGES = 10;

export class DiscoveryFailure extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'DiscoveryFailure';
  }
}

/** One GET below the channel's base URL (path with its query), answering the parsed JSON body. */
export type UpstreamGet = (path: string, headers: Record<string, string>) => Promise<unknown>;

/** A dialect's way to list its models over `get`, with the channel's `key`. */
export type ModelListReader = (get: UpstreamGet, channel: ResolvedChannel, key: string) => Promise<string[]>;

/** The channel's configured headers, then the dialect's auth (`auth` wins). */
export function listHeaders(channel: ResolvedChannel, auth: Readonly<Record<string, string>>): Record<string, string> {
  return Object.assign({}, channel.headers, auth);
}

/** GET `path` on `dispatcher` and parse the 2xx JSON answer, reading at most MAX_BODY_BYTES. */
export async function getJson(
  dispatcher: Dispatcher,
  path: string,
  headers: Record<string, string>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<unknown> {
  // Identity: undici's request() does not decompress, and the body is parsed here.
  const sent = Object.assign({}, headers, { accept: 'application/json', 'accept-encoding': 'identity' });
  let res: Dispatcher.ResponseData;
  try {
    res = await dispatcher.request({ method: 'GET', path, headers: sent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal });
  } catch (err) {
    throw new DiscoveryFailure(transportReason(err), { cause: err });
  }
  if (res.statusCode < 200 || res.statusCode > 299) {
    // Read away (up to undici's dump limit), so the connection is reused; the body itself is never logged.
    await res.body.dump().catch(() => undefined);
    throw new DiscoveryFailure(isRedirect(res.statusCode) ? redirectRefused('the upstream', res.statusCode) : `HTTP ${res.statusCode}`);
  }
  let bytes: Buffer;
  try {
    bytes = await readBody(res.body, MAX_BODY_BYTES, () => new DiscoveryFailure(`the answer is over ${MAX_BODY_BYTES} bytes`));
  } catch (err) {
    // Leaving the loop has destroyed the body already (an explicit destroy() would raise an unheard error).
    throw err instanceof DiscoveryFailure ? err : new DiscoveryFailure(transportReason(err), { cause: err });
  }
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new DiscoveryFailure('the answer is not JSON');
  }
}

/** OpenAI's list: `{object: "list", data: [{id, ...}]}`, all in one answer. */
export async function readOpenAIModelList(get: UpstreamGet, headers: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  addIds(dataOf(await get('/v1/models', headers)), ids);
  return ids;
}

/** Anthropic's pages: `{data: [{id, ...}], has_more, last_id}`, the next one asked for with `after_id`. */
export async function readAnthropicModelPages(get: UpstreamGet, headers: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < MAX_ANTHROPIC_PAGES; page++) {
    const query: string = after === null ? '' : `&after_id=${encodeURIComponent(after)}`;
    const json = await get(`/v1/models?limit=${ANTHROPIC_PAGE_SIZE}${query}`, headers);
    addIds(dataOf(json), ids);
    const { has_more: hasMore, last_id: lastId } = json as Record<string, unknown>;
    if (hasMore !== true) return ids;
    if (typeof lastId !== 'string' || lastId === after) throw new DiscoveryFailure('has_more without a new last_id');
    after = lastId;
  }
  throw new DiscoveryFailure(`more than ${MAX_ANTHROPIC_PAGES} pages`);
}

function dataOf(json: unknown): unknown[] {
  const data = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>)['data'] : undefined;
  if (!Array.isArray(data)) throw new DiscoveryFailure('the answer is not a model list (no data array)');
  return data;
}

/** Usable ids only: an entry without a string id of 1 to MAX_ID_BYTES bytes is skipped, not the whole list. */
function addIds(data: readonly unknown[], into: string[]): void {
  for (const item of data) {
    const id = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)['id'] : undefined;
    if (typeof id !== 'string' || id === '' || Buffer.byteLength(id) > MAX_ID_BYTES) continue;
    if (into.length === MAX_MODEL_IDS) throw new DiscoveryFailure(`more than ${MAX_MODEL_IDS} models`);
    into.push(id);
  }
}

function transportReason(err: unknown): string {
  if (
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError ||
    err instanceof undiciErrors.ConnectTimeoutError
  ) {
    return 'no answer in time';
  }
  if (err instanceof undiciErrors.UndiciError) return `the connection failed (${err.code})`;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return `the upstream could not be reached (${code})`;
  return err instanceof Error ? err.name : 'unknown error';
}
