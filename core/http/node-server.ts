// The node:http server under fastify: the API routes go to their chains (pipeline-intake.ts) before fastify sees
// them, pipelined requests are served one at a time and never behind a connection's last answer, and the timeouts
// are set for both paths.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ResolvedServer } from '../config/resolved.js';
import { InFlightList } from '../pipeline/in-flight-list.js';
import type { BodyIntake } from './body-intake.js';
import { isClosing, waitingOn } from './lingering-close.js';
import type { Intake } from './pipeline-intake.js';

/** How long an idle kept-alive connection stays open, on both paths. */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Pipelined requests a connection may have waiting for their turn (node's own queue is unbounded). */
const MAX_WAITING = 32;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The body's timeout is body-intake.ts's (answered in the caller's shape); Node's own covers the headers, checked
 * a few times per timeout, and its answer goes through the clientErrorHandler (client-error.ts).
 */
export function createNodeServer(settings: ResolvedServer, bodies: BodyIntake, intake: Intake, fallback: Handler): Server {
  // No closure per request: a request that must wait is handed back to the same listener when its turn comes.
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (waitsItsTurn(req, res, onRequest)) return;
    if (!intake(req, res, false)) fallback(req, res);
  };
  // A request that asks before sending its body (Expect: 100-continue, as curl does for large ones) is told to go
  // on only once admitted: an API route after its key was checked, the others at once.
  const onCheckContinue = (req: IncomingMessage, res: ServerResponse): void => {
    if (waitsItsTurn(req, res, onCheckContinue) || intake(req, res, true)) return;
    res.writeContinue();
    fallback(req, res);
  };
  const server = createServer(
    { connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(settings.headerTimeoutMs / 4))) },
    onRequest,
  );
  server.on('checkContinue', onCheckContinue);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = settings.headerTimeoutMs;
  server.requestTimeout = 0;
  server.on('close', () => bodies.close());
  return server;
}

/**
 * True when `req` is not to be served now: it is handed to `listener` again when its turn comes, or dropped. A
 * request pipelined behind one still being answered (Node queues its response, which has no socket yet) waits
 * until that answer is out, as nginx serves pipelined requests in turn: the answer
 * before it may still decide to close the connection (a refusal after an await), and a request run meanwhile would
 * be sent upstream and billed with no answer that could reach its client. A request on a connection that closes
 * once its answer under way is out (pipelined behind it, or parsed from the rest of a refused body) is never served:
 * its bytes are dropped, its response never written, and it goes with the connection.
 */
function waitsItsTurn(req: IncomingMessage, res: ServerResponse, listener: Handler): boolean {
  if (isClosing(req.socket)) {
    req.resume();
    return true;
  }
  if (res.socket !== null) return false;
  const waiting = waitingOn(req.socket);
  // Each waiting request holds its head and two objects: a client that pipelines without reading is cut off.
  if (waiting.size >= MAX_WAITING) {
    req.socket.destroy();
    return true;
  }
  waiting.add(req);
  // Node hands the socket to the next queued response once the one before is out, unless that one closed it.
  res.once('socket', () => {
    waiting.delete(req);
    listener(req, res);
  });
  return true;
}

/**
 * Connections that never carried a request: Node's closeIdleConnections() (fastify's 'idle' mode) skips them, so
 * one client that opened a connection and went quiet (fetch leaves one after an aborted stream) would hold
 * shutdown open until it leaves. They have nothing in flight; closeAll() drops them at once.
 *
 * A list with a remover per socket, not a Set: a client with a connection per request would add to and delete from
 * it per request (pipeline/in-flight-list.ts says why that matters).
 */
export function unusedConnections(server: Server): { closeAll(): void } {
  const unused = new InFlightList<Socket>();
  const removers = new WeakMap<Socket, () => void>();
  server.on('connection', (socket: Socket) => {
    const remove = unused.add(socket);
    removers.set(socket, remove);
    socket.once('close', remove);
  });
  server.on('request', (req: IncomingMessage) => removers.get(req.socket)?.());
  return {
    closeAll() {
      for (const socket of unused.values()) socket.destroy();
    },
  };
}
