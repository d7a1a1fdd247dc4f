// What the asset-store plugin sends back: a library's result in Volcengine's envelope with the gateway's request id,
// cleaned of what is the operator's (its project); and an upstream's error as a GatewayError that keeps its code.

import { GatewayError, responseMetadata, scrubSecrets, type ErrorCode, type LibraryAnswer, type LibraryChannel, type RelayResult, type RequestContext } from '../../core/index.js';

/** Fields of a library's records that are the operator's, not the caller's. */
const OPERATOR_FIELDS: readonly string[] = ['ProjectName', 'AccountId', 'OwnerId'];

/** A record (group or asset) without the operator's fields. */
export function callerRecord(record: unknown): Record<string, unknown> {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return {};
  const out: Record<string, unknown> = Object.assign({}, record as Record<string, unknown>);
  for (const field of OPERATOR_FIELDS) delete out[field];
  return out;
}

export function resultOf(answer: LibraryAnswer): Record<string, unknown> {
  const result = answer.body['Result'];
  return typeof result === 'object' && result !== null && !Array.isArray(result) ? (result as Record<string, unknown>) : {};
}

export function envelope(ctx: RequestContext, action: string, result: Readonly<Record<string, unknown>>): RelayResult {
  return {
    kind: 'body',
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ ResponseMetadata: responseMetadata(ctx.id, action), Result: result })),
  };
}

/** The gateway's code for an upstream's refusal of this status (its own Volcengine code is kept beside it). */
function codeFor(status: number): ErrorCode {
  if (status === 404) return 'GW_ERR_UPSTREAM_NOT_FOUND';
  if (status === 403) return 'GW_ERR_UPSTREAM_FORBIDDEN';
  if (status === 413) return 'GW_ERR_UPSTREAM_TOO_LARGE';
  if (status === 429) return 'GW_ERR_UPSTREAM_RATE_LIMITED';
  // 401: the library refused the operator's AK/SK; the caller's key is fine, so no 401 reaches it.
  if (status === 401 || status >= 500) return 'GW_ERR_UPSTREAM_ERROR';
  return 'GW_ERR_UPSTREAM_BAD_REQUEST';
}

/** Digit runs as long as a Volcengine account id: an upstream message may name the operator's account. */
const ACCOUNT_ID = /\b\d{8,}\b/g;

/**
 * An upstream's error envelope as the caller's error: its Volcengine code kept (`NotFound.group_id`,
 * `SubscriptionRequired`), its message scrubbed of the operator's AK, project and account ids.
 */
export function upstreamRefusal(answer: LibraryAnswer, channel: LibraryChannel): GatewayError {
  const metadata = answer.body['ResponseMetadata'];
  const error = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>)['Error'] : undefined;
  const fields = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const code = typeof fields['Code'] === 'string' && /^[A-Z][A-Za-z0-9_.]{0,127}$/.test(fields['Code']) ? fields['Code'] : undefined;
  const raw = typeof fields['Message'] === 'string' ? fields['Message'].slice(0, 1000) : `The asset library answered ${answer.status}.`;
  let message = raw;
  for (const secret of channel.secrets) message = message.replaceAll(secret, '[redacted]');
  message = scrubSecrets(message, []).replace(ACCOUNT_ID, '[redacted]');
  return new GatewayError(codeFor(answer.status), message, code === undefined ? { upstreamStatus: answer.status } : { upstreamStatus: answer.status, wireCode: code });
}
