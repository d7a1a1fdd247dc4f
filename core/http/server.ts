// The only file that imports fastify: the routes outside the plugin chains (health, metrics, the mock's images)
// and their errors, in the caller's shape. The registry's endpoints (the APIs, the model list, the admin API) never
// reach fastify (node-server.ts, pipeline-intake.ts).

import type { Socket } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ResolvedServer } from '../config/resolved.js';
import { GatewayError, shuttingDownError } from '../errors.js';
import { MOCK_IMAGE_PATH } from '../providers/mock/image-files.js';
import type { Runtime } from '../runtime.js';
import { BodyIntake } from './body-intake.js';
import { answerClientError, type ClientError } from './client-error.js';
import { errorFormatFor } from './error-format.js';
import { serveMetrics } from './metrics-route.js';
import { serveMockImage } from './mock-image-route.js';
import { createNodeServer, KEEP_ALIVE_TIMEOUT_MS, unusedConnections } from './node-server.js';
import { pipelineIntake } from './pipeline-intake.js';
import { Readiness } from './readiness.js';
import { refuse } from './refusal.js';
import { sendJson } from './send.js';
import { notFoundError } from './url-hints.js';

/**
 * No fastify route takes a body (the registry's endpoints read theirs under server.body_limit, after their key or
 * token was checked): a small bound for whatever a client sends anyway.
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

/**
 * The server settings are fixed at start (`server.*` needs a restart, but for admin_token and metrics_token, read
 * per request).
 */
export function createHttpServer(runtime: Runtime, settings: ResolvedServer): FastifyInstance {
  const bodies = new BodyIntake({
    bodyLimit: settings.bodyLimit,
    bodyTimeoutMs: settings.bodyTimeoutMs,
    maxInflightBodyBytes: settings.maxInflightBodyBytes,
  }, runtime.deps.bodyPool);
  // With server.admin_listen, /admin/* has a listener of its own (admin-listener.ts) and is a 404 here.
  const intake = pipelineIntake(runtime, bodies, settings.adminListen === null ? 'with-rest' : 'elsewhere');
  const app = Fastify({
    logger: false,
    bodyLimit: FASTIFY_BODY_LIMIT,
    // The API routes go straight to their chains (pipeline-intake.ts); fastify serves the rest.
    serverFactory: (handler) => createNodeServer(settings, bodies, intake, handler),
    clientErrorHandler: (err: ClientError, socket: Socket) => answerClientError(runtime, bodies, err, socket),
    // We answer 503 ourselves, in the caller's error shape, while draining.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
  });
  const unused = unusedConnections(app.server);
  app.addHook('preClose', (done) => {
    unused.closeAll();
    done();
  });

  // Bodies stay raw bytes: the client format parses once and the original bytes can be forwarded unchanged.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  /** Errors answered outside a chain, in the shape the caller's client understands. */
  const answerError = (request: FastifyRequest, reply: FastifyReply, err: GatewayError): void => {
    reply.hijack();
    refuse(runtime, request.raw, reply.raw, err, errorFormatFor(runtime.current, request.url, request.headers));
  };

  // Callback style, not async: an async hook costs a promise and a microtask turn on every request.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (runtime.shuttingDown) {
      reply.raw.setHeader('connection', 'close');
      answerError(request, reply, shuttingDownError());
      return;
    }
    done();
  });

  app.setErrorHandler((err: FastifyError, request, reply) => answerError(request, reply, fromFastifyError(err)));

  app.setNotFoundHandler((request, reply) => answerError(request, reply, notFoundError(request.method, request.url, runtime.deps.endpoints)));

  // The mock channel's images handed out as URLs (providers/mock/image-files.ts).
  app.get(`${MOCK_IMAGE_PATH}:name`, (request, reply) => {
    reply.hijack();
    serveMockImage(runtime, request.raw, reply.raw, (request.params as { name: string }).name);
  });

  // Claude Code sends HEAD / when it starts, to open a connection early.
  app.head('/', (_request, reply) => {
    reply.hijack();
    const id = runtime.ids.next();
    reply.raw.writeHead(200, { 'content-length': '0', 'x-request-id': id, 'request-id': id });
    reply.raw.end();
  });

  app.get('/healthz', (_request, reply) => {
    reply.hijack();
    sendJson(reply.raw, 200, { status: 'ok' }, runtime.ids.next());
  });

  const readiness = new Readiness(runtime);
  app.get('/readyz', async (_request, reply) => {
    reply.hijack();
    const report = await readiness.report();
    sendJson(reply.raw, report.ready ? 200 : 503, { status: report.status, store: report.store, redis: report.redis }, runtime.ids.next());
  });

  // With server.metrics_listen, /metrics has a listener of its own (metrics-route.ts) and is not served here.
  if (settings.metricsListen === null) {
    app.get('/metrics', (request, reply) => {
      reply.hijack();
      return serveMetrics(runtime, request.raw, reply.raw);
    });
  }

  return app;
}
