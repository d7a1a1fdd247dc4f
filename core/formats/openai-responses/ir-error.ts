// Errors a Responses upstream reports: OpenAI's body {error:{message,type,param,code}} on a non-2xx answer,
// and, once a stream began, an `error` event {code,message} or a terminal `response.failed`
// {response:{error:{code,message}}}.

import type { GatewayError } from '../../errors.js';
import { upstreamError } from '../../ir/upstream-error.js';
import { field } from '../json-fields.js';

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A non-2xx answer. Bodies that are not OpenAI's JSON (a proxy's HTML page) keep only the status. */
export function decodeError(status: number, body: Buffer): GatewayError {
  let json: unknown = null;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    // Not JSON: the status alone says what happened.
  }
  const error = field(json, 'error');
  // Some OpenAI-compatible servers answer {"error":"..."} or {"message":"..."}.
  if (typeof error === 'string') return upstreamError({ status, type: null, code: null, message: text(error) });
  const source = typeof error === 'object' && error !== null ? error : json;
  return upstreamError({
    status,
    type: text(field(source, 'type')),
    code: text(field(source, 'code')),
    message: text(field(source, 'message')),
  });
}

/**
 * An in-band `error` event: {type:"error", code, message, param}. Some servers nest the fields in `error`;
 * the event's own `type` is the event name, not an error type.
 */
export function decodeStreamError(data: unknown): GatewayError {
  const nested = field(data, 'error');
  const source = typeof nested === 'object' && nested !== null ? nested : data;
  return upstreamError({
    status: null,
    type: source === data ? null : text(field(source, 'type')),
    code: text(field(source, 'code')),
    message: text(field(source, 'message')),
  });
}

/** A `response.failed` event, or a whole response whose status is failed: its `error` {code, message}. */
export function decodeFailedResponse(response: unknown): GatewayError {
  const error = field(response, 'error');
  return upstreamError({
    status: null,
    type: text(field(error, 'type')),
    code: text(field(error, 'code')),
    message: text(field(error, 'message')),
  });
}
