// server.admin_listen: the admin API (/admin/*) on an address of its own, e.g. one only the operators' network
// reaches; the main port then answers 404 there (pipeline-intake.ts). The same chains, limits and body rules as on
// the main port; anything else here is a 404.

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ResolvedServer } from '../config/resolved.js';
import { GatewayError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { BodyIntake } from './body-intake.js';
import { answerClientError, type ClientError } from './client-error.js';
import { errorFormatFor } from './error-format.js';
import { closeLingering } from './lingering-close.js';
import { createNodeServer } from './node-server.js';
import { pipelineIntake } from './pipeline-intake.js';
import { refuse } from './refusal.js';
import { listen } from './listen.js';

export async function listenForAdmin(runtime: Runtime, settings: ResolvedServer, host: string, port: number): Promise<Server> {
  // Its own reads, within the same limits: admin bodies are capped at 64 KiB (registry.ts, `control`).
  const bodies = new BodyIntake(
    { bodyLimit: settings.bodyLimit, bodyTimeoutMs: settings.bodyTimeoutMs, maxInflightBodyBytes: settings.maxInflightBodyBytes },
    runtime.deps.bodyPool,
  );
  const server = createNodeServer(settings, bodies, pipelineIntake(runtime, bodies, 'only'), (req, res) => {
    // Whatever body came is not read: the connection closes after the answer.
    closeLingering(res);
    const err = new GatewayError('GW_ERR_ROUTE_NOT_FOUND', 'This listener serves the admin API (/admin/*) only.');
    refuse(runtime, req, res, err, errorFormatFor(runtime.current, '/admin/keys', req.headers));
  });
  server.on('clientError', (err: ClientError, socket: Socket) => answerClientError(runtime, bodies, err, socket));
  return listen(server, port, host);
}
