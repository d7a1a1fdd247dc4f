// Reads an OpenAI-style error ({"error":{"message","type","param","code"}}) from a Chat upstream, in a non-2xx body
// or in a stream frame, as the gateway error to give the client. The body itself never reaches the client.

import type { GatewayError } from '../../errors.js';
import { upstreamError } from '../../ir/upstream-error.js';
import { field } from '../json-fields.js';

function text(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  // Some compatible servers send numeric codes.
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}

/** `error`: the value of the `error` key. OpenAI-compatible servers also send a bare string or a top-level message. */
export function readError(error: unknown, status: number | null, body: unknown = undefined): GatewayError {
  if (typeof error === 'string') return upstreamError({ status, type: null, code: null, message: text(error) });
  const source = typeof error === 'object' && error !== null ? error : body;
  return upstreamError({
    status,
    type: text(field(source, 'type')),
    code: text(field(source, 'code')),
    message: text(field(source, 'message')),
  });
}

export function decodeError(status: number, body: Buffer): GatewayError {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    // An HTML page from a proxy, an empty body: nothing to tell but the status.
    return upstreamError({ status, type: null, code: null, message: null });
  }
  return readError(field(json, 'error'), status, json);
}
