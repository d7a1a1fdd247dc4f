// Volcengine's OpenAPI envelope, which its SDKs and the relays' users read: `{ResponseMetadata, Result}` on success,
// `ResponseMetadata.Error {Code, Message}` and no Result on failure. Every answer of /v1/videogen/asset/* has it, the
// gateway's own refusals (401, 402, 403, 404, 429, 5xx) included, with the gateway's request id.

import { waitHeaders, type GatewayError } from '../../core/errors.js';
import { encodeFrame } from '../../core/sse/frame-writer.js';
import type { SseFrame } from '../../core/sse/frame.js';
import type { ErrorAbout, RenderedError } from '../../core/formats/format.js';
import { ASSET_API_VERSION } from './library.js';

/**
 * The Volcengine code of each of the gateway's own errors (docs/assets-and-video.md, "Asset library": the table). Volcengine's common
 * codes where one fits (MissingAuthenticationToken, AccessDenied, FlowLimitExceeded, ...); an error thrown with a
 * code of Volcengine's own (`InvalidParameter.URL`, `NotFound.group_id`, an upstream's) keeps it.
 */
const CODES: Partial<Readonly<Record<GatewayError['code'], string>>> = {
  GW_ERR_AUTH_MISSING_KEY: 'MissingAuthenticationToken',
  GW_ERR_AUTH_INVALID_KEY: 'InvalidAuthenticationToken',
  GW_ERR_AUTH_REVOKED_KEY: 'InvalidAuthenticationToken',
  GW_ERR_AUTH_KEY_CONFLICT: 'InvalidAuthenticationToken',
  GW_ERR_AUTH_DISABLED_KEY: 'InvalidAuthenticationToken',
  GW_ERR_AUTH_EXPIRED_KEY: 'InvalidAuthenticationToken',
  GW_ERR_AUTH_DISABLED_ACCOUNT: 'AccountDisabled',
  GW_ERR_AUTH_ADDRESS_FORBIDDEN: 'AccessDenied',
  GW_ERR_AUTH_MODEL_FORBIDDEN: 'AccessDenied',
  GW_ERR_INSUFFICIENT_BALANCE: 'InsufficientBalance',
  GW_ERR_MAX_SPEND_REACHED: 'SpendingLimitReached',
  GW_ERR_RATE_LIMITED: 'FlowLimitExceeded',
  GW_ERR_TOKEN_RATE_LIMITED: 'FlowLimitExceeded',
  GW_ERR_UPSTREAM_RATE_LIMITED: 'FlowLimitExceeded',
  GW_ERR_ROUTE_NOT_FOUND: 'InvalidActionOrVersion',
  GW_ERR_ASSET_ACTION_UNKNOWN: 'InvalidActionOrVersion',
  GW_ERR_METHOD_NOT_ALLOWED: 'MethodNotAllowed',
  GW_ERR_REQUEST_INVALID_JSON: 'InvalidParameter',
  GW_ERR_REQUEST_INVALID_FIELD: 'InvalidParameter',
  GW_ERR_REQUEST_MISSING_FIELD: 'MissingParameter',
  GW_ERR_REQUEST_TOO_LARGE: 'RequestEntityTooLarge',
  GW_ERR_REQUEST_TIMEOUT: 'RequestTimeout',
  GW_ERR_URL_REFUSED: 'InvalidParameter.URL',
  GW_ERR_ASSET_GROUP_NOT_FOUND: 'NotFound.group_id',
  GW_ERR_ASSET_NOT_FOUND: 'NotFound.asset_id',
  GW_ERR_UPSTREAM_TIMEOUT: 'GatewayTimeout',
  GW_ERR_INTERNAL: 'InternalError',
};

/** What a status says when no code above does. */
function codeByStatus(status: number): string {
  if (status === 401) return 'InvalidAuthenticationToken';
  if (status === 403) return 'AccessDenied';
  if (status === 404) return 'NotFound';
  if (status === 429) return 'FlowLimitExceeded';
  if (status >= 500) return 'ServiceUnavailable';
  return 'InvalidParameter';
}

/** Whether `code` is one of Volcengine's shape (`Name` or `Name.Detail`), as an upstream's or one thrown so. */
export function isVolcengineCode(code: string): boolean {
  return code.length <= 128 && /^[A-Z][A-Za-z0-9]*(\.[A-Za-z0-9_.]+)?$/.test(code);
}

export function volcengineCode(err: GatewayError): string {
  if (err.wireCode !== null && isVolcengineCode(err.wireCode)) return err.wireCode;
  const code = CODES[err.code] ?? codeByStatus(err.status);
  // The field a 400 is about, as Volcengine's codes name it (`MissingParameter.GroupId`).
  if ((code === 'InvalidParameter' || code === 'MissingParameter') && err.param !== null) return `${code}.${err.param.slice(0, 64)}`;
  return code;
}

/** The action a path names (`/v1/videogen/asset/CreateAsset` -> CreateAsset), bounded; '' when none. */
export function actionOf(path: string | undefined): string {
  if (path === undefined) return '';
  const last = path.slice(path.lastIndexOf('/') + 1);
  return /^[A-Za-z]{1,64}$/.test(last) ? last : '';
}

export function responseMetadata(requestId: string, action: string): Record<string, unknown> {
  return { RequestId: requestId, Action: action, Version: ASSET_API_VERSION, Service: 'ark' };
}

export function encodeError(err: GatewayError, about?: ErrorAbout): RenderedError {
  const metadata = responseMetadata(about?.requestId ?? '', actionOf(about?.path));
  metadata['Error'] = { Code: volcengineCode(err), Message: err.message };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  // retry-after, and a periodic max_spend's x-gateway-budget-reset, as every other API shape says them.
  waitHeaders(err, headers);
  return { status: err.status, headers, body: JSON.stringify({ ResponseMetadata: metadata }) };
}

/** No action streams; a frame is only asked for by the contract. */
export function encodeStreamError(err: GatewayError): SseFrame {
  return encodeFrame(JSON.stringify({ ResponseMetadata: { Error: { Code: volcengineCode(err), Message: err.message } } }));
}

export function isErrorFrame(): boolean {
  return false;
}
