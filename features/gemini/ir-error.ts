// Gemini's errors: {"error":{"code","message","status","details"}} from an upstream (a non-2xx body, often wrapped in
// a one-element array by :streamGenerateContent, or an in-band stream event) read as the gateway error to give the
// client; and the same shape written for a Gemini client whose translated stream failed.

import { GatewayError, type ErrorCode } from '../../core/errors.js';
import { field } from '../../core/formats/json-fields.js';
import { upstreamError } from '../../core/ir/upstream-error.js';

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** `[{"error":...}]` as `{"error":...}`: the array form of streamGenerateContent's error bodies. */
function unwrapped(json: unknown): unknown {
  return Array.isArray(json) && json.length > 0 ? json[0] : json;
}

/** Google's status strings that name a kind the gateway tells apart without an HTTP status (in-band errors). */
const KINDS: Readonly<Record<string, string>> = { RESOURCE_EXHAUSTED: 'rate_limit', UNAVAILABLE: 'overloaded' };

/** google.rpc.RetryInfo's retryDelay ("15s", "1.5s") in whole seconds, rounded up; null when absent. */
function retryDelay(details: unknown): number | null {
  if (!Array.isArray(details)) return null;
  for (const detail of details) {
    const type = field(detail, '@type');
    if (typeof type !== 'string' || !type.endsWith('google.rpc.RetryInfo')) continue;
    const delay = field(detail, 'retryDelay');
    const m = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    const seconds = m === null ? NaN : Math.ceil(Number(m[1]));
    if (Number.isFinite(seconds) && seconds > 0) return seconds;
  }
  return null;
}

/** google.rpc.ErrorInfo's reason (API_KEY_INVALID, ...): the code to keep when there is no status string. */
function reason(details: unknown): string | null {
  if (!Array.isArray(details)) return null;
  const info: unknown = details.find((d: unknown) => String(field(d, '@type')).endsWith('google.rpc.ErrorInfo'));
  return text(field(info, 'reason'));
}

function readError(json: unknown, status: number | null): GatewayError {
  const error = field(unwrapped(json), 'error');
  const wireStatus = text(field(error, 'status'));
  const details = field(error, 'details');
  const err = upstreamError({
    status,
    type: wireStatus === null ? null : (KINDS[wireStatus] ?? null),
    code: wireStatus ?? reason(details),
    message: text(field(error, 'message')),
  });
  const retryAfter = retryDelay(details);
  if (retryAfter === null) return err;
  // The client waits what Google asked (Gemini CLI honours retry-after as it honours RetryInfo).
  return new GatewayError(err.code as ErrorCode, err.message, {
    retryAfter,
    ...(err.upstreamStatus === null ? {} : { upstreamStatus: err.upstreamStatus }),
    ...(err.wireCode === null ? {} : { wireCode: err.wireCode }),
  });
}

/** A non-2xx answer of a Gemini upstream. */
export function decodeError(status: number, body: Buffer): GatewayError {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    // An HTML page from a proxy, an empty body: nothing to tell but the status.
    return upstreamError({ status, type: null, code: null, message: null });
  }
  return readError(json, status);
}

/**
 * The wait a Gemini error body asks for (its RetryInfo's retryDelay), in whole seconds; null when it names none or is
 * no JSON. Google tells it there only, never in a Retry-After header.
 */
export function bodyRetryDelay(body: Buffer): number | null {
  try {
    return retryDelay(field(field(unwrapped(JSON.parse(body.toString('utf8'))), 'error'), 'details'));
  } catch {
    return null;
  }
}

/** An error where an answer was due: an in-band stream event, or a 2xx body holding `error`. */
export function inBandError(json: unknown): GatewayError {
  return readError(json, null);
}

/** Whether a parsed body or event is Gemini's error shape (bare or in its one-element array). */
export function isErrorBody(json: unknown): boolean {
  const error = field(unwrapped(json), 'error');
  return error !== undefined && error !== null;
}
