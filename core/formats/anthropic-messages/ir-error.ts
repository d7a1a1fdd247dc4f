// Anthropic errors read for a client of another format: {"type":"error","error":{"type","message"}} as an
// HTTP body, or as the data of an `event: error` frame inside a stream.

import type { GatewayError } from '../../errors.js';
import { upstreamError } from '../../ir/upstream-error.js';
import { field } from '../json-fields.js';

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The error object of an error body or event; anything else reads as an error that says nothing. */
function readError(json: unknown): { type: string | null; code: string | null; message: string | null } {
  const error = field(json, 'error');
  return {
    type: text(field(error, 'type')),
    // A spend-limit 429 says why in error.details.error_code; nothing else in the shape is a code.
    code: text(field(field(error, 'details'), 'error_code')),
    message: text(field(error, 'message')),
  };
}

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    // An HTML page from a proxy, a truncated body: the status alone must speak.
    return null;
  }
}

/** A non-2xx answer of an Anthropic upstream. */
export function decodeError(status: number, body: Buffer): GatewayError {
  return upstreamError({ status, ...readError(parse(body)) });
}

/** The data of an in-stream `error` event (or an error body where an answer was due): the status is unknown. */
export function inBandError(event: unknown): GatewayError {
  return upstreamError({ status: null, ...readError(event) });
}
