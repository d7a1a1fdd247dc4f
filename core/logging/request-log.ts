// One log line per finished request that failed (warn; error for 5xx), and per request when the access log is on.
// A request that went well and no access log cost one comparison: nothing is built for a line not written.
//
// Never a secret: the line names the caller's key by its name, never the key; no bodies, no headers.

import type { RequestState } from '../pipeline/request-state.js';
import type { Logger } from './logger.js';

/** A model name is the client's string: bounded in a log line as it is in a label. */
const MAX_MODEL_CHARS = 256;

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
  } else if (error.code === 'GW_ERR_INTERNAL') {
    // The cause, with its stack, is what tells a bug; the caller got only "internal error".
    line['err'] = error.cause ?? error;
    logger.error(line, 'request failed: internal error');
  } else if (status >= 500) {
    logger.error(line, `request failed: ${error.message}`);
  } else {
    logger.warn(line, `request failed: ${error.message}`);
  }
}

function boundedModel(model: string | null): string | null {
  return model === null || model.length <= MAX_MODEL_CHARS ? model : `${model.slice(0, MAX_MODEL_CHARS)}…`;
}
