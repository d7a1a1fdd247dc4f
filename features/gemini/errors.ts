// Google's error shape: {"error":{"code","message","status"}} with the google.rpc status name of the HTTP status.
// Gemini CLI reads `status` and `details` (RetryInfo's retryDelay on a 429), and retries 429 and 5xx only.

import { waitHeaders, type ErrorKind, type GatewayError } from '../../core/errors.js';
import type { RenderedError } from '../../core/formats/format.js';
import { encodeFrame } from '../../core/sse/frame-writer.js';
import type { SseFrame } from '../../core/sse/frame.js';

/** google.rpc status names by the gateway's error kinds (ai.google.dev troubleshooting's table). */
const STATUS: Readonly<Record<ErrorKind, string>> = {
  invalid_request: 'INVALID_ARGUMENT',
  authentication: 'UNAUTHENTICATED',
  permission: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  request_too_large: 'INVALID_ARGUMENT',
  rate_limit: 'RESOURCE_EXHAUSTED',
  token_rate_limit: 'RESOURCE_EXHAUSTED',
  // Google's own word for "billing needed"; a 402 is not retried by Gemini CLI, as no retry can pay.
  billing: 'FAILED_PRECONDITION',
  upstream: 'UNAVAILABLE',
  timeout: 'DEADLINE_EXCEEDED',
  overloaded: 'UNAVAILABLE',
  internal: 'INTERNAL',
};

/** The error's body in Google's shape (an answer's, or a stream event's data). */
export function errorObject(err: GatewayError): Record<string, unknown> {
  const error: Record<string, unknown> = { code: err.status, message: err.message, status: STATUS[err.kind] };
  // Gemini CLI waits at least this long before its retry (and gives up on a delay over 300 s).
  if (err.retryAfter !== null) error['details'] = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${err.retryAfter}s` }];
  return { error };
}

export function encodeError(err: GatewayError): RenderedError {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
  waitHeaders(err, headers);
  return { status: err.status, headers, body: JSON.stringify(errorObject(err)) };
}

/**
 * After a stream began there is no status to set: the error goes as a data event. Google's SDK reads such an event as
 * an empty answer, and Gemini CLI then retries the turn for want of a finish reason, which is what a broken stream
 * needs.
 */
export function encodeStreamError(err: GatewayError): SseFrame {
  return encodeFrame(JSON.stringify(errorObject(err)));
}

/** A Gemini stream's event that is an error object rather than a GenerateContentResponse. */
export function isErrorFrame(frame: SseFrame): boolean {
  return frame.data !== null && ERROR_EVENT.test(frame.data);
}

const ERROR_EVENT = /^\s*\{\s*"error"\s*:/;
