// What the asset library route sends back: a library's result in Volcengine's envelope with the gateway's request id,
// holding only the record fields Volcengine documents (nothing of the operator's: its project, account, resource
// names); and an upstream's error as a GatewayError that keeps its code, its message scrubbed of the operator's ids.

import type { LibraryChannel } from './libraries.js';
import type { LibraryAnswer } from './library.js';
import { GatewayError, type ErrorCode } from '../../core/errors.js';
import { isVolcengineCode, responseMetadata } from './envelope.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { RelayResult } from '../../core/pipeline/plugin.js';
import { scrubSecrets } from '../../core/scrub-secrets.js';

/**
 * The fields of a group's and an asset's record that are the caller's to see. An allow-list, not a deny-list: a field
 * Volcengine adds later (a resource name carrying the account id) stays out until it is looked at.
 */
const RECORD_FIELDS: readonly string[] = ['Id', 'Name', 'Description', 'GroupType', 'URL', 'GroupId', 'AssetType', 'Status', 'CreateTime', 'UpdateTime'];

/** Digit runs as long as a Volcengine account id, standing alone (not the timestamp inside an id such as asset-2026...-x). */
function withoutAccountIds(text: string): string {
  return text.replace(/(?<![\w-])\d{8,}(?![\w-])/g, '[redacted]');
}

/**
 * A message of the library's, without the channel's keys, the operator's AK/SK, project name, account ids or anything
 * key-shaped. Scrubbed whole before it is cut: half a key is no longer recognised as one.
 */
export function scrubbed(message: string, channel: LibraryChannel): string {
  let out = message;
  // The scrubber skips secrets too short to search for safely; a short project name is still the operator's.
  for (const secret of channel.secrets) out = out.replaceAll(secret, '[redacted]');
  return withoutAccountIds(scrubSecrets(out, channel.secrets)).slice(0, 1000);
}

/** A record (group or asset) as the caller sees it: the documented fields, a Failed asset's Error scrubbed. */
export function callerRecord(record: unknown, channel: LibraryChannel): Record<string, unknown> {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return {};
  const from = record as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of RECORD_FIELDS) if (from[field] !== undefined) out[field] = from[field];
  const error = from['Error'];
  if (typeof error === 'object' && error !== null) {
    const { Code: code, Message: message } = error as Record<string, unknown>;
    out['Error'] = { Code: typeof code === 'string' ? code.slice(0, 128) : '', Message: typeof message === 'string' ? scrubbed(message, channel) : '' };
  }
  return out;
}

export function resultOf(answer: LibraryAnswer): Record<string, unknown> {
  const result = answer.body['Result'];
  return typeof result === 'object' && result !== null && !Array.isArray(result) ? (result as Record<string, unknown>) : {};
}

/** The library's error in an answer (`ResponseMetadata.Error`), which some APIs send with a 2xx. */
export function errorIn(answer: LibraryAnswer): Record<string, unknown> | null {
  const metadata = answer.body['ResponseMetadata'];
  const error = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>)['Error'] : undefined;
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : null;
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
  // 401 (and a 2xx carrying an error): the library refused the operator's AK/SK or failed; the caller's key is fine.
  if (status === 401 || status >= 500 || status < 300) return 'GW_ERR_UPSTREAM_ERROR';
  return 'GW_ERR_UPSTREAM_BAD_REQUEST';
}

/**
 * An upstream's error envelope as the caller's error: its Volcengine code kept (`NotFound.group_id`,
 * `SubscriptionRequired`), its message scrubbed. A refusal of the operator's credentials (401) says so and no more:
 * its message names the operator's key and account.
 */
export function upstreamRefusal(answer: LibraryAnswer, channel: LibraryChannel): GatewayError {
  const fields = errorIn(answer) ?? {};
  const code = typeof fields['Code'] === 'string' && isVolcengineCode(fields['Code']) ? fields['Code'] : undefined;
  const message =
    answer.status === 401
      ? "The asset library refused the gateway's own credentials; the operator must check the channel's control block."
      : typeof fields['Message'] === 'string'
        ? scrubbed(fields['Message'], channel)
        : `The asset library answered ${answer.status}.`;
  return new GatewayError(codeFor(answer.status), message, code === undefined ? { upstreamStatus: answer.status } : { upstreamStatus: answer.status, wireCode: code });
}
