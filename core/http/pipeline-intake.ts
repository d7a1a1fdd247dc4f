// The API routes served by plugin chains, taken straight from node:http's 'request' event: the body is read
// here under the size limit and handed to the chain as bytes. Every other request goes on to fastify.
//
// Why not a fastify route: its per-request objects, router, hooks and content-type parser cost ~10 us of the
// ~100 us a small proxied request may cost in all (bench/README.md), and these routes use none of them: the
// body stays raw, errors are the chain's, in the caller's format.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../errors.js';
import { BodyBytes } from '../formats/body-bytes.js';
import type { Runtime } from '../runtime.js';
import { errorFormatFor } from './error-format.js';
import { servePipelineRoute } from './pipeline-route.js';
import { sendError } from './send.js';

export const PIPELINE_PATHS: ReadonlySet<string> = new Set([
  '/v1/chat/completions',
  '/v1/messages',
  '/v1/messages/count_tokens',
  '/v1/responses',
  '/v1/responses/compact',
]);

/** Returns a 'request' listener that answers pipeline routes and returns false for anything else. */
export function pipelineIntake(runtime: Runtime, bodyLimit: number): (req: IncomingMessage, res: ServerResponse) => boolean {
  return function intake(req, res) {
    if (req.method !== 'POST') return false;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (!PIPELINE_PATHS.has(path)) return false;
    if (runtime.shuttingDown) {
      res.setHeader('connection', 'close');
      answer(runtime, req, res, new GatewayError('GW_ERR_SHUTTING_DOWN', 'The gateway is shutting down; retry shortly.', { retryAfter: 1 }));
      return true;
    }
    if (Number(req.headers['content-length']) > bodyLimit) {
      answer(runtime, req, res, tooLarge());
      return true;
    }
    readBody(req, bodyLimit, (err, body) => {
      if (err !== null) {
        answer(runtime, req, res, err);
        return;
      }
      servePipelineRoute(runtime, path, req, res, body).catch((failure: unknown) => {
        // runChain answers every error itself; this is a bug, and the caller still gets an answer.
        runtime.deps.logger.error({ err: failure, path }, 'serving a request failed outside its chain');
        answer(runtime, req, res, new GatewayError('GW_ERR_INTERNAL', 'The gateway failed to handle the request.'));
      });
    });
    return true;
  };
}

/**
 * Collects the body's reads (held as body-bytes.ts says); over `limit` bytes it stops collecting and reports
 * 413 (Node discards the rest once the answer is out). A client that goes away mid-body gets no answer: there
 * is no one to read it.
 */
function readBody(req: IncomingMessage, limit: number, done: (err: GatewayError | null, body: BodyBytes) => void): void {
  const parts: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) {
      stop();
      done(tooLarge(), BodyBytes.fromReads([], 0));
      return;
    }
    parts.push(chunk);
  };
  const onEnd = (): void => {
    stop();
    done(null, BodyBytes.fromReads(parts, size));
  };
  const onError = (): void => stop();
  const stop = (): void => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
}

function tooLarge(): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_TOO_LARGE', 'The request body is larger than this gateway accepts.');
}

function answer(runtime: Runtime, req: IncomingMessage, res: ServerResponse, err: GatewayError): void {
  sendError(res, err, errorFormatFor(runtime.current, req.url ?? '', req.headers));
}
