// An upstream's error, re-rendered for a client of another format: its status class and message carry over,
// its body never does (it is in the wrong shape, and may name the operator's account).

import { GatewayError } from '../errors.js';

/** What a dialect's error decoder read from an upstream error body or in-band error event. */
export interface UpstreamErrorInfo {
  /** HTTP status of the response, or null for an error inside a stream. */
  readonly status: number | null;
  /** The dialect's error type or code (invalid_request_error, overloaded_error, rate_limit_exceeded, ...). */
  readonly type: string | null;
  readonly code: string | null;
  readonly message: string | null;
}

const OVERLOADED = /overload/i;
const RATE_LIMIT = /rate_limit|insufficient_quota/i;

export function upstreamError(info: UpstreamErrorInfo): GatewayError {
  const message = info.message ?? `The upstream answered ${info.status === null ? 'with an error' : `HTTP ${info.status}`}.`;
  const options: { upstreamStatus?: number; wireCode?: string } = {};
  if (info.status !== null) options.upstreamStatus = info.status;
  if (info.code !== null) options.wireCode = info.code;
  const kind = `${info.type ?? ''} ${info.code ?? ''}`;
  if (info.status === 529 || info.status === 503 || OVERLOADED.test(kind)) return new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', message, options);
  if (info.status === 429 || RATE_LIMIT.test(kind)) return new GatewayError('GW_ERR_UPSTREAM_RATE_LIMITED', message, options);
  if (info.status === 404) return new GatewayError('GW_ERR_UPSTREAM_NOT_FOUND', message, options);
  if (info.status === 413) return new GatewayError('GW_ERR_UPSTREAM_TOO_LARGE', message, options);
  if (info.status !== null && info.status >= 400 && info.status < 500) return new GatewayError('GW_ERR_UPSTREAM_BAD_REQUEST', message, options);
  return new GatewayError('GW_ERR_UPSTREAM_ERROR', message, options);
}
