// GET /metrics: the Prometheus text, behind server.metrics_token when one is set (read per request, so a reload
// applies it).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { carriesToken } from '../keys/operator-token.js';
import { refuse } from './refusal.js';

export async function serveMetrics(runtime: Runtime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const token = runtime.current.config.server.metricsToken;
  if (token !== null && !carriesToken(req.headers, token)) {
    const err = new GatewayError('GW_ERR_METRICS_UNAUTHORIZED', 'A valid metrics token is required (Authorization: Bearer <metrics_token>).');
    refuse(runtime, req, res, err, undefined);
    return;
  }
  const registry = runtime.deps.metrics.registry;
  const text = await registry.metrics();
  const id = runtime.ids.next();
  res.writeHead(200, { 'content-type': registry.contentType, 'x-request-id': id, 'request-id': id });
  res.end(text);
}
