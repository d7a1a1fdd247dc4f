// GET /metrics: the Prometheus text, behind server.metrics_token when one is set (read per request, so a reload
// applies it).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { carriesToken } from './bearer-token.js';
import { sendError } from './send.js';

export async function serveMetrics(runtime: Runtime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const token = runtime.current.config.server.metricsToken;
  if (token !== null && !carriesToken(req, token)) {
    sendError(res, new GatewayError('GW_ERR_METRICS_UNAUTHORIZED', 'A valid metrics token is required (Authorization: Bearer <metrics_token>).'));
    return;
  }
  const registry = runtime.deps.metrics.registry;
  const text = await registry.metrics();
  res.writeHead(200, { 'content-type': registry.contentType });
  res.end(text);
}
