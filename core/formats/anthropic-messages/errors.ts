// Anthropic's error shape: {"type":"error","error":{"type","message"}}; after a stream began, an `event: error` frame.

import { waitHeaders, type ErrorKind, type GatewayError } from '../../errors.js';
import { encodeFrame } from '../../sse/frame-writer.js';
import type { SseFrame } from '../../sse/frame.js';
import type { RenderedError } from '../format.js';

/** Anthropic's error types (docs.claude.com/en/api/errors); 4xx without a type of their own are invalid requests. */
const TYPES: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  request_too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  token_rate_limit: 'rate_limit_error',
  billing: 'billing_error',
  upstream: 'api_error',
  timeout: 'timeout_error',
  overloaded: 'overloaded_error',
  internal: 'api_error',
};

function errorBody(err: GatewayError): string {
  return JSON.stringify({ type: 'error', error: { type: TYPES[err.kind], message: err.message } });
}

export function encodeError(err: GatewayError): RenderedError {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  waitHeaders(err, headers);
  // The SDKs obey x-should-retry; say so explicitly for what a retry cannot fix.
  if (err.status < 500 && err.status !== 408 && err.status !== 409 && err.status !== 429) headers['x-should-retry'] = 'false';
  return { status: err.status, headers, body: errorBody(err) };
}

/** The Anthropic SDK and Claude Code dispatch on the event name; an error frame without `event: error` is lost. */
export function encodeStreamError(err: GatewayError): SseFrame {
  return encodeFrame(errorBody(err), 'error');
}

/** An Anthropic stream reports a failure (overloaded, ...) as an `event: error` frame. */
export function isErrorFrame(frame: SseFrame): boolean {
  return frame.event === 'error';
}
