// A webhook receiver on loopback: keeps every delivery as it arrived (headers and raw bytes, for signature checks),
// answering each with the next status a test queued (200 once they run out: a receiver that fails its first tries).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackHttpServer, recordRequest, type RecordedRequest } from './loopback-http-server.js';

export class WebhookReceiver extends LoopbackHttpServer {
  readonly received: RecordedRequest[] = [];
  /** The statuses of the next deliveries, in order. */
  statuses: number[] = [];

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.received.push(await recordRequest(req));
    res.writeHead(this.statuses.shift() ?? 200, { 'content-type': 'text/plain' });
    res.end('ok');
  }
}
