// The one error type of the gateway and the table of core's codes (a feature declares its own beside it, with
// declareErrors); formats render every one in their wire shape.

import { isStoreUnreachable } from './store/store-unreachable.js';

/** What kind of failure a code is; each client format maps a kind to its own error `type`. */
export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'request_too_large'
  | 'rate_limit'
  /** A limit of tokens (OpenAI's 429s say "tokens" rather than "requests"). */
  | 'token_rate_limit'
  | 'billing'
  | 'upstream'
  | 'timeout'
  | 'overloaded'
  | 'internal';

export interface ErrorSpec {
  readonly status: number;
  readonly kind: ErrorKind;
  /** The OpenAI-style `code` field, when the real API has one for this case. */
  readonly wireCode: string | null;
}

const ERRORS = {
  GW_ERR_AUTH_MISSING_KEY: { status: 401, kind: 'authentication', wireCode: 'invalid_api_key' },
  GW_ERR_AUTH_INVALID_KEY: { status: 401, kind: 'authentication', wireCode: 'invalid_api_key' },
  GW_ERR_AUTH_REVOKED_KEY: { status: 401, kind: 'authentication', wireCode: 'invalid_api_key' },
  GW_ERR_AUTH_KEY_CONFLICT: { status: 401, kind: 'authentication', wireCode: 'invalid_api_key' },
  GW_ERR_AUTH_MODEL_FORBIDDEN: { status: 403, kind: 'permission', wireCode: 'model_not_allowed' },
  GW_ERR_AUTH_DISABLED_KEY: { status: 401, kind: 'authentication', wireCode: 'invalid_api_key' },
  GW_ERR_AUTH_EXPIRED_KEY: { status: 401, kind: 'authentication', wireCode: 'invalid_api_key' },
  GW_ERR_AUTH_DISABLED_ACCOUNT: { status: 401, kind: 'authentication', wireCode: 'account_deactivated' },
  GW_ERR_AUTH_ADDRESS_FORBIDDEN: { status: 403, kind: 'permission', wireCode: 'ip_not_allowed' },
  GW_ERR_CONSOLE_SIGN_IN: { status: 401, kind: 'authentication', wireCode: 'sign_in_failed' },
  GW_ERR_CONSOLE_LINK_INVALID: { status: 400, kind: 'invalid_request', wireCode: 'link_invalid' },
  GW_ERR_CONSOLE_SIGNED_OUT: { status: 401, kind: 'authentication', wireCode: 'not_signed_in' },
  GW_ERR_CONSOLE_CSRF: { status: 403, kind: 'permission', wireCode: 'csrf_token_invalid' },
  GW_ERR_CONSOLE_NOT_BUILT: { status: 503, kind: 'internal', wireCode: 'console_not_built' },
  GW_ERR_CONSOLE_KEY_DECLARED: { status: 409, kind: 'invalid_request', wireCode: 'key_declared_in_config' },
  GW_ERR_CONSOLE_OPERATOR_ONLY: { status: 403, kind: 'permission', wireCode: 'operator_only' },
  GW_ERR_CONSOLE_PASSWORD_WRONG: { status: 400, kind: 'invalid_request', wireCode: 'current_password_wrong' },
  GW_ERR_ADMIN_UNAUTHORIZED: { status: 401, kind: 'authentication', wireCode: 'invalid_admin_token' },
  GW_ERR_METRICS_UNAUTHORIZED: { status: 401, kind: 'authentication', wireCode: 'invalid_metrics_token' },
  GW_ERR_ROUTE_NOT_FOUND: { status: 404, kind: 'not_found', wireCode: 'unknown_url' },
  GW_ERR_METHOD_NOT_ALLOWED: { status: 405, kind: 'invalid_request', wireCode: 'method_not_allowed' },
  GW_ERR_MODEL_NOT_FOUND: { status: 404, kind: 'not_found', wireCode: 'model_not_found' },
  GW_ERR_MODEL_OUT_OF_SERVICE: { status: 503, kind: 'overloaded', wireCode: 'model_unavailable' },
  GW_ERR_REQUEST_INVALID_JSON: { status: 400, kind: 'invalid_request', wireCode: 'invalid_json' },
  GW_ERR_REQUEST_INVALID_FIELD: { status: 400, kind: 'invalid_request', wireCode: 'invalid_value' },
  GW_ERR_REQUEST_MISSING_FIELD: { status: 400, kind: 'invalid_request', wireCode: 'missing_required_parameter' },
  GW_ERR_REQUEST_UNSUPPORTED_MEDIA: { status: 415, kind: 'invalid_request', wireCode: 'unsupported_media_type' },
  GW_ERR_REQUEST_TOO_LARGE: { status: 413, kind: 'request_too_large', wireCode: 'request_too_large' },
  GW_ERR_REQUEST_HEADERS_TOO_LARGE: { status: 431, kind: 'invalid_request', wireCode: 'request_headers_too_large' },
  GW_ERR_REQUEST_MALFORMED: { status: 400, kind: 'invalid_request', wireCode: 'malformed_http_request' },
  GW_ERR_REQUEST_TIMEOUT: { status: 408, kind: 'invalid_request', wireCode: 'request_timeout' },
  GW_ERR_INTAKE_BUSY: { status: 503, kind: 'overloaded', wireCode: 'server_busy' },
  GW_ERR_TRANSLATION_UNSUPPORTED: { status: 400, kind: 'invalid_request', wireCode: 'unsupported_for_upstream' },
  GW_ERR_UPSTREAM_BAD_REQUEST: { status: 400, kind: 'invalid_request', wireCode: 'invalid_request_error' },
  GW_ERR_UPSTREAM_FORBIDDEN: { status: 403, kind: 'permission', wireCode: 'upstream_forbidden' },
  GW_ERR_UPSTREAM_NOT_FOUND: { status: 404, kind: 'not_found', wireCode: 'not_found' },
  GW_ERR_UPSTREAM_TOO_LARGE: { status: 413, kind: 'request_too_large', wireCode: 'request_too_large' },
  GW_ERR_UPSTREAM_UNAVAILABLE: { status: 502, kind: 'upstream', wireCode: 'upstream_unavailable' },
  GW_ERR_UPSTREAM_ERROR: { status: 502, kind: 'upstream', wireCode: 'upstream_error' },
  GW_ERR_UPSTREAM_OVERLOADED: { status: 503, kind: 'overloaded', wireCode: 'upstream_overloaded' },
  GW_ERR_UPSTREAM_RATE_LIMITED: { status: 429, kind: 'rate_limit', wireCode: 'rate_limit_exceeded' },
  GW_ERR_UPSTREAM_TIMEOUT: { status: 504, kind: 'timeout', wireCode: 'upstream_timeout' },
  GW_ERR_UPSTREAM_STREAM_BROKEN: { status: 502, kind: 'upstream', wireCode: 'upstream_stream_error' },
  GW_ERR_CLIENT_CLOSED: { status: 499, kind: 'invalid_request', wireCode: 'client_closed_request' },
  GW_ERR_USAGE_BACKLOG: { status: 503, kind: 'overloaded', wireCode: 'usage_backlog' },
  GW_ERR_INSUFFICIENT_BALANCE: { status: 402, kind: 'billing', wireCode: 'insufficient_balance' },
  GW_ERR_MAX_SPEND_REACHED: { status: 402, kind: 'billing', wireCode: 'max_spend_reached' },
  GW_ERR_MODEL_NOT_PRICED: { status: 403, kind: 'permission', wireCode: 'model_not_priced' },
  GW_ERR_BILLING_UNAVAILABLE: { status: 503, kind: 'overloaded', wireCode: 'billing_unavailable' },
  GW_ERR_STORE_UNAVAILABLE: { status: 503, kind: 'overloaded', wireCode: 'store_unavailable' },
  GW_ERR_RATE_LIMITED: { status: 429, kind: 'rate_limit', wireCode: 'rate_limit_exceeded' },
  GW_ERR_TOKEN_RATE_LIMITED: { status: 429, kind: 'token_rate_limit', wireCode: 'rate_limit_exceeded' },
  GW_ERR_LIMITS_UNAVAILABLE: { status: 503, kind: 'overloaded', wireCode: 'rate_limits_unavailable' },
  GW_ERR_SHARED_STATE_UNAVAILABLE: { status: 503, kind: 'overloaded', wireCode: 'shared_state_unavailable' },
  GW_ERR_SHUTTING_DOWN: { status: 503, kind: 'overloaded', wireCode: 'server_shutting_down' },
  GW_ERR_URL_REFUSED: { status: 400, kind: 'invalid_request', wireCode: 'invalid_url' },
  GW_ERR_INTERNAL: { status: 500, kind: 'internal', wireCode: 'internal_error' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** A feature's own code (features/<name>/errors.ts): its name with its spec, so core renders it like its own. */
export interface DeclaredError<C extends string = string> {
  readonly code: C;
  readonly spec: ErrorSpec;
}

/** A feature's table of codes, each named GW_ERR_*, as values to throw with: `new GatewayError(ERRORS.X, ...)`. */
export function declareErrors<const T extends Readonly<Record<`GW_ERR_${string}`, ErrorSpec>>>(table: T): { readonly [K in keyof T & string]: DeclaredError<K> } {
  const taken = Object.keys(table).find((code) => code in ERRORS);
  // One code, one meaning: a feature's may not redefine core's.
  if (taken !== undefined) throw new Error(`${taken} is core's error code already`);
  return Object.freeze(Object.fromEntries(Object.entries(table).map(([code, spec]) => [code, Object.freeze({ code, spec })]))) as { readonly [K in keyof T & string]: DeclaredError<K> };
}

export interface GatewayErrorOptions {
  readonly cause?: unknown;
  /** The request field the error is about, in the caller's notation (`messages[0].role`). */
  readonly param?: string;
  /** Upstream status that led to this error, kept for logs and metrics (never the upstream body). */
  readonly upstreamStatus?: number;
  /** Seconds the caller should wait, for 429 and 503 (and a periodic budget's 402: until it resets). */
  readonly retryAfter?: number;
  /** When the periodic budget that refused resets (epoch ms): the x-gateway-budget-reset header. */
  readonly resetsAt?: number;
  /** The upstream's own error code (context_length_exceeded, ...) when an upstream error is re-rendered in another format. */
  readonly wireCode?: string;
}

/** The headers every API shape adds for an error's wait: retry-after, and when a periodic budget resets. */
export function waitHeaders(err: GatewayError, headers: Record<string, string>): void {
  if (err.retryAfter !== null) headers['retry-after'] = String(err.retryAfter);
  if (err.resetsAt !== null) headers['x-gateway-budget-reset'] = new Date(err.resetsAt).toISOString();
}

export class GatewayError extends Error {
  /** Core's code, or a feature's (declareErrors). */
  readonly code: ErrorCode | `GW_ERR_${string}`;
  readonly status: number;
  readonly kind: ErrorKind;
  readonly wireCode: string | null;
  readonly param: string | null;
  readonly upstreamStatus: number | null;
  readonly retryAfter: number | null;
  readonly resetsAt: number | null;

  constructor(code: ErrorCode | DeclaredError, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const spec: ErrorSpec = typeof code === 'string' ? ERRORS[code] : code.spec;
    this.name = 'GatewayError';
    this.code = typeof code === 'string' ? code : (code.code as `GW_ERR_${string}`);
    this.status = spec.status;
    this.kind = spec.kind;
    this.wireCode = options.wireCode ?? spec.wireCode;
    this.param = options.param ?? null;
    this.upstreamStatus = options.upstreamStatus ?? null;
    this.retryAfter = options.retryAfter ?? null;
    this.resetsAt = options.resetsAt ?? null;
  }
}

/** The 503 of a request that arrives (or whose body still arrives) while the gateway shuts down. */
export function shuttingDownError(): GatewayError {
  return new GatewayError('GW_ERR_SHUTTING_DOWN', 'The gateway is shutting down; retry shortly.', { retryAfter: 1 });
}

/** The 503 of a request its store could not serve (the database out of reach): retry, nothing was done. */
export function storeUnavailableError(err: unknown): GatewayError {
  return new GatewayError('GW_ERR_STORE_UNAVAILABLE', 'The gateway cannot reach its database right now; retry shortly.', { cause: err, retryAfter: 1 });
}

/**
 * Anything thrown that is not a GatewayError is an internal error, its text never reaching the caller; but the
 * database out of reach is a 503 to retry (it is no fault of the request's nor a bug of ours).
 */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (isStoreUnreachable(err)) return storeUnavailableError(err);
  return new GatewayError('GW_ERR_INTERNAL', 'The gateway failed to handle the request.', { cause: err });
}

/** Every channel of the model is disabled at run time: it exists, and is out of service until one is enabled again. */
export function modelOutOfService(model: string): GatewayError {
  return new GatewayError('GW_ERR_MODEL_OUT_OF_SERVICE', `The model '${model.slice(0, 256)}' is out of service right now: every channel that serves it is disabled. Retry later.`, { param: 'model' });
}
