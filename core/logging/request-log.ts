// One log line per finished request that failed (warn; error for 5xx), and per request when the access log is on.
// A request that went well and no access log cost one comparison: nothing is built for a line not written.
//
// Never a secret: the line names the caller's key by its name, never the key; no bodies, no headers.

import type { GatewayError } from '../errors.js';
import type { RequestState } from '../pipeline/request-state.js';
import { scrubSecrets } from '../scrub-secrets.js';
import type { Logger } from './logger.js';

/** A model name or a path is the client's string: bounded in a log line as a model is in a label. */
const MAX_CLIENT_CHARS = 256;
/** Longer than any HTTP method. */
const MAX_METHOD_CHARS = 16;

export function logFinished(logger: Logger, access: boolean, ctx: RequestState): void {
  const error = ctx.error;
  if (error === null && ctx.status < 400 && !access) return;
  const status = error !== null && ctx.status < 400 ? error.status : ctx.status;
  const line: Record<string, unknown> = {
    requestId: ctx.id,
    route: ctx.route,
    model: boundedModel(ctx.modelIfKnown),
    key: ctx.key?.name ?? null,
    channel: ctx.channel,
    status: ctx.status,
    code: error?.code ?? null,
    upstreamStatus: error?.upstreamStatus ?? null,
    latencyMs: Math.round(performance.now() - ctx.startedAt),
  };
  if (ctx.firstByteAt !== null) line['ttfbMs'] = Math.round(ctx.firstByteAt - ctx.startedAt);
  if (error === null && ctx.status < 400) {
    logger.info(line, 'request');
  } else if (error === null) {
    // The upstream's own answer (a 400 for a too-long context, ...), passed through as it was.
    line['upstreamStatus'] = ctx.status;
    if (ctx.status >= 500) logger.error(line, `request failed: the upstream answered ${ctx.status}`);
    else logger.warn(line, `request failed: the upstream answered ${ctx.status}`);
  } else if (error.code === 'GW_ERR_CLIENT_CLOSED') {
    // A client that goes away is not a failure of the gateway's (agents cancel streams all the time).
    logger.info(line, 'request ended by the client');
  } else {
    // A message may quote the client's text (a path parameter, a model name): bounded and scrubbed, as a refusal's.
    logError(logger, line, error, status, scrubSecrets(bounded(error.message), []));
  }
}

/**
 * A request answered with an error outside any chain. Its path is the client's: without its query (where some
 * clients put keys), bounded, and scrubbed of anything shaped like a key.
 */
export function logRefused(logger: Logger, requestId: string, method: string, url: string, error: GatewayError): void {
  const q = url.indexOf('?');
  const path = scrubSecrets(bounded(q < 0 ? url : url.slice(0, q)), []);
  // The message may quote the path too (a 404's hint).
  const message = scrubSecrets(bounded(error.message), []);
  // A method Node could not parse is whatever letters the client sent.
  const line = { requestId, method: method.slice(0, MAX_METHOD_CHARS), path, status: error.status, code: error.code };
  logError(logger, line, error, error.status, message);
}

function logError(logger: Logger, line: Record<string, unknown>, error: GatewayError, status: number, message = error.message): void {
  if (error.code === 'GW_ERR_INTERNAL') {
    // The cause, with its stack, is what tells a bug; the caller got only "internal error".
    line['err'] = error.cause ?? error;
    logger.error(line, 'request failed: internal error');
  } else if (status >= 500 && error.code !== 'GW_ERR_SHUTTING_DOWN') {
    logger.error(line, `request failed: ${message}`);
  } else {
    // A 4xx, or the 503 of a planned shutdown: the caller's fault or an expected moment, not the gateway's.
    logger.warn(line, `request failed: ${message}`);
  }
}

function boundedModel(model: string | null): string | null {
  return model === null ? null : bounded(model);
}

function bounded(text: string): string {
  return text.length <= MAX_CLIENT_CHARS ? text : `${text.slice(0, MAX_CLIENT_CHARS)}…`;
}
