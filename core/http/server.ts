// The only file that imports fastify: the API routes to pipeline-intake.ts, the rest to handlers, errors in the OpenAI shape.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ResolvedServer } from '../config/resolved.js';
import { GatewayError } from '../errors.js';
import { InFlightList } from '../pipeline/in-flight-list.js';
import type { Runtime } from '../runtime.js';
import { checkAdminToken, serveAdmin, type AdminAction } from './admin-routes.js';
import { BodyIntake } from './body-intake.js';
import { answerClientError, type ClientError } from './client-error.js';
import { errorFormatFor } from './error-format.js';
import { closeLingering } from './lingering-close.js';
import { serveMetrics } from './metrics-route.js';
import { serveModel, serveModels } from './models-route.js';
import { pipelineIntake } from './pipeline-intake.js';
import { sendError, sendJson } from './send.js';
import { notFoundError } from './url-hints.js';

/**
 * The admin API's bodies are a name and a group: fastify reads at most this much for its own routes (the API
 * routes read theirs under server.body_limit, after their key was checked).
 */
const FASTIFY_BODY_LIMIT = 64 * 1024;

/** Fastify's body errors, mapped to our codes (it answers them before a handler runs). */
function fromFastifyError(err: FastifyError): GatewayError {
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.statusCode === 413) {
    return new GatewayError('GW_ERR_REQUEST_TOO_LARGE', 'The request body is larger than this gateway accepts.');
  }
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `The request could not be read: ${err.message}`);
  }
  return new GatewayError('GW_ERR_INTERNAL', 'The gateway failed to handle the request.', { cause: err });
}

/** How long an idle kept-alive connection stays open, on both paths. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * The server settings are fixed at start (`server.*` needs a restart, but for admin_token and metrics_token, read
 * per request).
 */
export function createHttpServer(runtime: Runtime, settings: ResolvedServer): FastifyInstance {
  const bodies = new BodyIntake({
    bodyLimit: settings.bodyLimit,
    bodyTimeoutMs: settings.bodyTimeoutMs,
    maxInflightBodyBytes: settings.maxInflightBodyBytes,
  });
  const intake = pipelineIntake(runtime, bodies);
  const app = Fastify({
    logger: false,
    bodyLimit: FASTIFY_BODY_LIMIT,
    // The API routes go straight to their chains (pipeline-intake.ts); fastify serves the rest. The body's
    // timeout is body-intake.ts's (answered in the caller's shape); Node's own covers the headers, checked a few
    // times per timeout, and its answer goes through clientErrorHandler below.
    serverFactory: (handler) => {
      const server = createServer(
        { connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(settings.headerTimeoutMs / 4))) },
        (req: IncomingMessage, res: ServerResponse) => {
          if (!intake(req, res, false)) handler(req, res);
        },
      );
      // A request that asks before sending its body (Expect: 100-continue, as curl does for large ones) is told
      // to go on only once admitted: an API route after its key was checked, the others at once.
      server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
        if (intake(req, res, true)) return;
        res.writeContinue();
        handler(req, res);
      });
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      server.headersTimeout = settings.headerTimeoutMs;
      server.requestTimeout = 0;
      server.on('close', () => bodies.close());
      return server;
    },
    clientErrorHandler: (err: ClientError, socket: Socket) => answerClientError(runtime, bodies, err, socket),
    // We answer 503 ourselves, in the caller's error shape, while draining.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
  });

  // Connections that never carried a request: Node's closeIdleConnections() (fastify's 'idle' mode) skips
  // them, so one client that opened a connection and went quiet (fetch leaves one after an aborted stream)
  // would hold shutdown open until it leaves. They have nothing in flight; close() drops them at once.
  // A list with a remover per socket, not a Set: a client with a connection per request would add to and delete
  // from it per request (pipeline/in-flight-list.ts says why that matters).
  const unused = new InFlightList<Socket>();
  const removers = new WeakMap<Socket, () => void>();
  app.server.on('connection', (socket: Socket) => {
    const remove = unused.add(socket);
    removers.set(socket, remove);
    socket.once('close', remove);
  });
  app.server.on('request', (req: IncomingMessage) => removers.get(req.socket)?.());
  app.addHook('preClose', (done) => {
    for (const socket of unused.values()) socket.destroy();
    done();
  });

  // Bodies stay raw bytes: the client format parses once and the original bytes can be forwarded unchanged.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  /** Errors answered outside a chain, in the shape the caller's client understands. */
  const answerError = (request: FastifyRequest, reply: FastifyReply, err: GatewayError): void => {
    reply.hijack();
    sendError(reply.raw, err, errorFormatFor(runtime.current, request.url, request.headers));
  };

  // Callback style, not async: an async hook costs a promise and a microtask turn on every request.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (runtime.shuttingDown) {
      reply.raw.setHeader('connection', 'close');
      answerError(request, reply, new GatewayError('GW_ERR_SHUTTING_DOWN', 'The gateway is shutting down; retry shortly.', { retryAfter: 1 }));
      return;
    }
    done();
  });

  app.setErrorHandler((err: FastifyError, request, reply) => answerError(request, reply, fromFastifyError(err)));

  app.setNotFoundHandler((request, reply) => answerError(request, reply, notFoundError(request.method, request.url)));

  app.get('/v1/models', (request, reply) => {
    reply.hijack();
    return serveModels(runtime, request.raw, reply.raw);
  });

  app.get('/v1/models/:id', (request, reply) => {
    reply.hijack();
    return serveModel(runtime, request.raw, reply.raw, (request.params as { id: string }).id);
  });

  // Claude Code sends HEAD / when it starts, to open a connection early.
  app.head('/', (_request, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-length': '0' });
    reply.raw.end();
  });

  app.get('/healthz', (_request, reply) => {
    reply.hijack();
    sendJson(reply.raw, 200, { status: 'ok' });
  });

  // With server.metrics_listen, /metrics has a listener of its own (metrics-route.ts) and is not served here.
  if (settings.metricsListen === null) {
    app.get('/metrics', (request, reply) => {
      reply.hijack();
      return serveMetrics(runtime, request.raw, reply.raw);
    });
  }

  // The token is checked before fastify reads a body (onRequest): a caller without it costs no more than its headers.
  const adminGuard = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    try {
      checkAdminToken(runtime, request.raw);
      done();
    } catch (err) {
      reply.raw.shouldKeepAlive = false;
      closeLingering(reply.raw);
      answerError(request, reply, err as GatewayError);
    }
  };
  const admin = (action: (request: FastifyRequest) => AdminAction) => (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    return serveAdmin(runtime, request.raw, reply.raw, action(request));
  };
  app.get('/admin/keys', { onRequest: adminGuard }, admin(() => ({ kind: 'list' })));
  app.post('/admin/keys', { onRequest: adminGuard }, admin((request) => ({ kind: 'create', body: request.body as Buffer | undefined })));
  app.delete('/admin/keys/:id', { onRequest: adminGuard }, admin((request) => ({ kind: 'revoke', id: (request.params as { id: string }).id })));

  return app;
}
