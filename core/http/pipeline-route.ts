// A route served by a plugin chain: the request's context, the client's disconnect wired to it, the chain run,
// the outcome logged.

import { clientAddressOf } from '../keys/address-list.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { EndpointMatch } from '../endpoints/registry.js';
import { urlProblem } from '../endpoints/intake-names.js';
import { GatewayError } from '../errors.js';
import { logFinished } from '../logging/request-log.js';
import type { BodySource } from '../pipeline/body-source.js';
import { ClientAbort } from '../client-abort.js';
import { RequestState } from '../pipeline/request-state.js';
import { runChain } from '../pipeline/run.js';
import type { Runtime } from '../runtime.js';
import { closeLingering } from './lingering-close.js';
import { RawSink } from './raw-sink.js';
import { refuse } from './refusal.js';

/** One async call per request, not a wrapper awaiting the worker: each pending call is kept for a stream's life. */
export async function servePipelineRoute(
  runtime: Runtime,
  matched: EndpointMatch,
  req: IncomingMessage,
  res: ServerResponse,
  body: BodySource,
): Promise<void> {
  const receivedAt = Date.now();
  const startedAt = performance.now();
  const gateway = runtime.current;
  const { key } = matched;
  const chain = gateway.chains.get(key);
  const id = runtime.ids.next(receivedAt);
  if (chain === undefined) {
    // The body stays unread: the connection closes after the answer.
    closeLingering(res);
    refuse(runtime, req, res, new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No route is configured for ${key}.`), gateway.formats.get(key), id);
    return;
  }
  const format = chain.format.forCaller === undefined ? chain.format : chain.format.forCaller(matched.path, req.headers);
  const query = queryOf(req.url);
  // Names in the path and query are refused before anything runs, whoever asks (nothing of them is read first).
  const problem = urlProblem(matched.params, query);
  if (problem !== null) {
    closeLingering(res);
    refuse(runtime, req, res, problem, format, id);
    return;
  }
  const abort = new ClientAbort();
  const onClose = (): void => {
    if (!res.writableFinished) abort.abort();
  };
  res.on('close', onClose);
  const ctx = new RequestState(id, key, query, format, req.headers, abort, receivedAt, startedAt, body, matched, req.method === 'HEAD');
  ctx.clientAddress = clientAddressOf(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'], gateway.trustedProxies);
  // The one check tracing costs a request when it is off.
  if (gateway.tracer !== null) ctx.trace = gateway.tracer.begin(ctx);
  const untrack = runtime.track({ abort, res });
  gateway.enter();
  try {
    await runChain(chain, ctx, new RawSink(res, id), gateway.services.metrics);
  } finally {
    gateway.leave();
    untrack();
    res.off('close', onClose);
    // Nothing reads the body once the request is answered: a pooled one goes back for the next request.
    ctx.releaseBody();
    // After the finish hooks: the span carries the usage, the charge and the status they settled.
    ctx.trace?.end(ctx, ctx.modelIfKnown);
    logFinished(runtime.deps.logger, gateway.config.log.access, ctx);
    // A chain with no finish hook (the model list, the admin API) has no plugin that counts its requests: its
    // errors count with the answers given outside the chains, so that none goes unseen in the metrics.
    if (ctx.error !== null && chain.finish.length === 0) runtime.deps.metrics.refused.inc([ctx.error.code]);
    // While draining, a kept-alive connection would hold the listener open until the client drops it (undici
    // keeps idle sockets ~65 s), so shutdown would hang: end it once this response is out (end() flushes first).
    if (runtime.shuttingDown) req.socket.end();
  }
}

function queryOf(url: string | undefined): string {
  const at = url?.indexOf('?') ?? -1;
  return at < 0 || url === undefined ? '' : url.slice(at);
}
