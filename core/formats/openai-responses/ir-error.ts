// Errors a Responses upstream reports once a stream began: an `error` event {code,message} or a terminal
// `response.failed` {response:{error:{code,message}}}. A non-2xx body is OpenAI's {error:{...}}, the same as
// Chat's, read by openai-chat/ir-error.ts.

import type { GatewayError } from '../../errors.js';
import { upstreamError } from '../../ir/upstream-error.js';
import { field } from '../json-fields.js';

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
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
