// OpenAI's error shape: {"error":{"message","type","param","code"}}, before and after a stream began.

import { waitHeaders, type ErrorKind, type GatewayError } from '../../errors.js';
import { encodeFrame } from '../../sse/frame-writer.js';
import type { SseFrame } from '../../sse/frame.js';
import type { RenderedError } from '../format.js';

const TYPES: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'invalid_request_error',
  permission: 'invalid_request_error',
  not_found: 'invalid_request_error',
  request_too_large: 'invalid_request_error',
  // OpenAI's own 429s say which limit was hit ("requests" or "tokens"); a gateway-level limit is about requests.
  rate_limit: 'requests',
  token_rate_limit: 'tokens',
  // What OpenAI answers when an account has no credit left (429 there; 402 here, which no SDK retries).
  billing: 'insufficient_quota',
  upstream: 'server_error',
  timeout: 'server_error',
  overloaded: 'server_error',
  internal: 'server_error',
};

function errorBody(err: GatewayError): string {
  return JSON.stringify({
    error: { message: err.message, type: TYPES[err.kind], param: err.param, code: err.wireCode },
  });
}

export function encodeError(err: GatewayError): RenderedError {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  waitHeaders(err, headers);
  // The SDKs obey x-should-retry: money does not come back by retrying.
  if (err.kind === 'billing') headers['x-should-retry'] = 'false';
  return { status: err.status, headers, body: errorBody(err) };
}

/** The OpenAI SDK raises an APIError for a data frame whose JSON has a top-level `error`. */
export function encodeStreamError(err: GatewayError): SseFrame {
  return encodeFrame(errorBody(err));
}

/** OpenAI-compatible upstreams report a failure inside a stream as a data frame whose JSON is `{"error": ...}`. */
export function isErrorFrame(frame: SseFrame): boolean {
  const data = frame.data;
  return data !== null && (data.startsWith('{"error"') || data.startsWith('{ "error"'));
}
