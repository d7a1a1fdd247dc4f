// server.metrics_listen: /metrics (and /healthz, for the scraper's own checks) on an address of their own, e.g.
// one only the monitoring network reaches; the main port then does not serve /metrics.

import { createServer, type Server } from 'node:http';
import { GatewayError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { serveMetrics } from './metrics-route.js';
import { sendError, sendJson } from './send.js';
import { listen } from './listen.js';

export async function listenForMetrics(runtime: Runtime, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') {
      serveMetrics(runtime, req, res).catch((err: unknown) => {
        runtime.deps.logger.error({ err }, 'serving /metrics failed');
        sendError(res, new GatewayError('GW_ERR_INTERNAL', 'The gateway failed to handle the request.'), undefined, runtime.ids.next());
      });
    } else if (req.method === 'GET' && path === '/healthz') {
      sendJson(res, 200, { status: 'ok' }, runtime.ids.next());
    } else {
      sendError(res, new GatewayError('GW_ERR_ROUTE_NOT_FOUND', 'This listener serves GET /metrics and GET /healthz only.'), undefined, runtime.ids.next());
    }
  });
  server.keepAliveTimeout = 65_000;
  return listen(server, port, host);
}
