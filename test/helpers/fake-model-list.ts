// GET /v1/models for the fake upstreams, as the real APIs answer it: OpenAI's one list (Bearer key) or
// Anthropic's cursor pages (x-api-key and anthropic-version required). Its calls are kept apart from the
// fakes' `requests`, which tests count per chat call.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { recordRequest, type RecordedRequest } from './loopback-http-server.js';

export type ModelListShape = 'openai' | 'anthropic';

/** What GET /v1/models gets instead of the list: an error status, these bytes with 200, or no answer at all. */
export type ModelListFault = { readonly status: number } | { readonly raw: string } | { readonly hang: true } | null;

const CREATED = 1_715_367_049;
const CREATED_AT = '2025-09-29T00:00:00Z';

function isModelList(req: IncomingMessage): boolean {
  return req.method === 'GET' && (req.url ?? '').split('?')[0] === '/v1/models';
}

function sendJson(res: ServerResponse, status: number, json: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(json));
}

export class FakeModelList {
  /** The ids the upstream has, in its order. */
  ids: readonly string[];
  fault: ModelListFault = null;
  /** Every GET /v1/models received, the ones refused included. */
  readonly requests: RecordedRequest[] = [];

  constructor(
    private readonly shape: ModelListShape,
    ids: readonly string[],
  ) {
    this.ids = ids;
  }

  /** Answers the request if it is GET /v1/models (true), else leaves it to the fake (false). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    if (!isModelList(req)) return false;
    const recorded = await recordRequest(req);
    this.requests.push(recorded);
    const refusal = this.shape === 'openai' ? openAIRefusal(recorded) : anthropicRefusal(recorded);
    const fault = this.fault;
    if (fault !== null && 'hang' in fault) return true;
    if (refusal !== null) sendJson(res, refusal.status, refusal.body);
    else if (fault !== null && 'status' in fault) sendJson(res, fault.status, errorBody(this.shape, fault.status));
    else if (fault !== null) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(fault.raw);
    } else if (this.shape === 'openai') {
      sendJson(res, 200, { object: 'list', data: this.ids.map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'system' })) });
    } else {
      const page = anthropicPage(this.ids, new URL(recorded.path, 'http://fake.invalid').searchParams);
      sendJson(res, page.status, page.body);
    }
    return true;
  }
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

function errorBody(shape: ModelListShape, status: number): unknown {
  const message = `fake model list says ${status}`;
  return shape === 'openai'
    ? { error: { message, type: 'server_error', param: null, code: null } }
    : { type: 'error', error: { type: status === 401 ? 'authentication_error' : 'api_error', message } };
}

function openAIRefusal(req: RecordedRequest): Answer | null {
  if (/^Bearer \S+$/.test(String(req.headers['authorization'] ?? ''))) return null;
  return { status: 401, body: { error: { message: 'You didn\u2019t provide an API key.', type: 'invalid_request_error', param: null, code: null } } };
}

function anthropicRefusal(req: RecordedRequest): Answer | null {
  if (typeof req.headers['x-api-key'] !== 'string' || req.headers['x-api-key'] === '') {
    return { status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } } };
  }
  if (typeof req.headers['anthropic-version'] !== 'string') {
    return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } } };
  }
  return null;
}

/** Anthropic's paging: `limit` 1 to 1000 (default 20), `after_id` / `before_id` name an id of the list. */
function anthropicPage(ids: readonly string[], query: URLSearchParams): Answer {
  const limit = Number(query.get('limit') ?? '20');
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'limit: Input should be less than or equal to 1000' } } };
  }
  const after = query.get('after_id');
  const before = query.get('before_id');
  let page: readonly string[];
  let hasMore: boolean;
  if (before !== null) {
    const end = Math.max(0, ids.indexOf(before));
    page = ids.slice(Math.max(0, end - limit), end);
    hasMore = end - limit > 0;
  } else {
    const start = after === null ? 0 : ids.indexOf(after) + 1;
    page = after !== null && start === 0 ? [] : ids.slice(start, start + limit);
    hasMore = start + limit < ids.length && page.length > 0;
  }
  return {
    status: 200,
    body: {
      data: page.map((id) => ({ type: 'model', id, display_name: id, created_at: CREATED_AT })),
      has_more: hasMore,
      first_id: page[0] ?? null,
      last_id: page[page.length - 1] ?? null,
    },
  };
}
