// The API routes served by plugin chains, taken straight from node:http's 'request' event: the chain runs its
// head phase (auth, from the headers) first and reads the body only when it asks (body-intake.ts). Every other
// request goes on to fastify.
//
// Why not a fastify route: its per-request objects, router, hooks and content-type parser cost ~10 us of the
// ~100 us a small proxied request may cost in all (bench/README.md), and these routes use none of them: the
// body stays raw, errors are the chain's, in the caller's format. And fastify reads a body before any handler
// can look at the key.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isAdminEndpoint } from '../endpoints/registry.js';
import { GatewayError, shuttingDownError } from '../errors.js';
import type { Runtime } from '../runtime.js';
import type { BodyIntake } from './body-intake.js';
import { errorFormatFor } from './error-format.js';
import { closeLingering } from './lingering-close.js';
import { servePipelineRoute } from './pipeline-route.js';
import { refuse } from './refusal.js';

/** A 'request' (or 'checkContinue') listener that answers pipeline routes and returns false for anything else. */
export type Intake = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => boolean;

/**
 * Where the admin API is served (server.admin_listen): on this listener with the rest (`with-rest`), on a listener of
 * its own, which serves nothing else (`only`), or elsewhere, this listener answering 404 there (`elsewhere`).
 */
export type AdminPlacement = 'with-rest' | 'only' | 'elsewhere';

export function pipelineIntake(runtime: Runtime, bodies: BodyIntake, admin: AdminPlacement = 'with-rest'): Intake {
  return function intake(req, res, expectsContinue) {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const matched = runtime.deps.endpoints.match(req.method, path);
    if (matched === undefined) return false;
    if (admin !== 'with-rest' && isAdminEndpoint(matched.endpoint) !== (admin === 'only')) {
      if (admin === 'only') return false;
      closeLingering(res);
      answer(runtime, req, res, new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No route at ${req.method ?? 'GET'} ${path}.`));
      return true;
    }
    if (runtime.shuttingDown) {
      closeLingering(res);
      answer(runtime, req, res, shuttingDownError());
      return true;
    }
    servePipelineRoute(runtime, matched, req, res, bodies.source(req, res, expectsContinue, matched.endpoint.body)).catch((failure: unknown) => {
      // runChain answers every error itself; this is a bug, and the caller still gets an answer (logged with its
      // stack).
      answer(runtime, req, res, new GatewayError('GW_ERR_INTERNAL', 'The gateway failed to handle the request.', { cause: failure }));
    });
    return true;
  };
}

function answer(runtime: Runtime, req: IncomingMessage, res: ServerResponse, err: GatewayError): void {
  refuse(runtime, req, res, err, errorFormatFor(runtime.current, req.url ?? '', req.headers));
}
