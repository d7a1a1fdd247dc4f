// An error answered outside the plugin chains (the intake's own refusals, malformed HTTP, unknown paths, /metrics):
// sent with a request id, logged and counted as a chain's failures are, so that no failed request goes unseen.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayError } from '../errors.js';
import type { ClientFormat } from '../formats/format.js';
import { logRefused } from '../logging/request-log.js';
import type { Runtime } from '../runtime.js';
import { sendError } from './send.js';

/** Sends `err` in `format` (OpenAI's when undefined), then logs and counts it. */
export function refuse(
  runtime: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  err: GatewayError,
  format: ClientFormat | undefined,
  id: string = runtime.ids.next(),
): void {
  sendError(res, err, format, id, (req.url ?? '/').split('?', 1)[0]);
  noteRefusal(runtime, id, req.method ?? 'GET', req.url ?? '/', err);
}

/** Logs and counts a refusal answered by other means (written to the raw socket). */
export function noteRefusal(runtime: Runtime, id: string, method: string, url: string, err: GatewayError): void {
  runtime.deps.metrics.refused.inc([err.code]);
  logRefused(runtime.deps.logger, id, method, url, err);
}
