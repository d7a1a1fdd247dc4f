// Closing a connection whose request body was left unread (401 before the body, 413, 408, 503, a parse error).
// Closing it at once makes the kernel reset it, since unread bytes sit in its buffer, and a client still sending its
// body then loses the answer with the reset ("socket hang up" instead of the 401). So, as nginx's lingering close:
// send the answer and a FIN, read and drop whatever still comes for a moment, then close. Nothing is kept of what
// is read; the moment is bounded.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a closing connection's late bytes are read and dropped before it is closed for good. */
const LINGER_MS = 2_000;

/**
 * Set on a socket from the moment its connection is to close once the answer under way is out: what else arrives
 * on it (pipelined requests, the rest of a refused body parsed as requests, parse errors) is neither served nor
 * answered, and so never run or billed without an answer that could reach the client.
 */
const CLOSING = Symbol('closing');

/** The requests on a socket waiting for their turn (node-server.ts): their bodies are dropped when it lingers. */
const WAITING = Symbol('waiting');

type Closing = 'closing' | 'lingering';
type MaybeClosing = Socket & { [CLOSING]?: Closing; [WAITING]?: Set<IncomingMessage> };

export function isClosing(socket: Socket): boolean {
  return (socket as MaybeClosing)[CLOSING] !== undefined;
}

/**
 * The requests pipelined on `socket` behind an answer still to come. Each one's unread body would fill its buffer
 * and pause the socket, so a lingering close could not drain it: lingering drops their bodies.
 */
export function waitingOn(socket: Socket): Set<IncomingMessage> {
  return ((socket as MaybeClosing)[WAITING] ??= new Set());
}

/**
 * Lingers on `res`'s connection once its answer is out. Call it before the answer is ended: Node's own 'finish'
 * handler (registered when the request came) then runs first and ends the socket, as the answer says
 * `connection: close`, and would destroy it as soon as it is ended (destroySoon); that destroy is taken back.
 */
export function closeLingering(res: ServerResponse): void {
  // The answer says `connection: close` (its headers are not out yet when this is called).
  res.shouldKeepAlive = false;
  const socket = res.socket;
  if (socket === null) return;
  (socket as MaybeClosing)[CLOSING] ??= 'closing';
  res.once('finish', () => {
    socket.removeListener('finish', socket.destroy);
    lingerOn(socket);
  });
}

/** Lingers on a socket whose answer was written to it directly: ends it, drops what comes, closes it. */
export function endLingering(socket: Socket, answer: string): void {
  socket.end(answer);
  lingerOn(socket);
}

function lingerOn(socket: Socket): void {
  if (socket.destroyed || (socket as MaybeClosing)[CLOSING] === 'lingering') return;
  (socket as MaybeClosing)[CLOSING] = 'lingering';
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  // The client has sent all it will (or gave up): nothing left to wait for.
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  // Requests waiting behind the last answer never get their turn: what they still receive is dropped too.
  const waiting = (socket as MaybeClosing)[WAITING];
  if (waiting !== undefined) for (const req of waiting) req.resume();
  socket.resume();
}
