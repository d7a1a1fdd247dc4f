// Reads request bodies within the server's limits: size (413), time (408), and the bytes of all bodies being
// read or held at once (503). A body is read only when the chain asks for it, after the head phase (auth)
// admitted the request: until then the request's socket is paused by Node's flow control once its small buffer
// is full. A body read counts against the cap until its request is answered (BodySource.release), since it is
// held, and often decoded, until then: the cap bounds the memory of bodies, not only of reads.
//
// Why one sweeper and not a timer per body: a timer per request is a few objects and two calls into Node's
// timer lists for every small request, whose body has nearly always arrived with its headers. The reads in
// progress sit in a list (add and swap-remove, in-flight-list.ts) that one interval checks, as Node checks its
// own header timeout.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { CONTROL_BODY_LIMIT, OPEN_BODY_LIMIT, type BodyFamily } from '../endpoints/registry.js';
import { GatewayError, shuttingDownError } from '../errors.js';
import { BodyBytes } from '../formats/body-bytes.js';
import type { BodyPool } from '../formats/body-pool.js';
import type { BodySource } from '../pipeline/body-source.js';
import type { ClientAbort } from '../client-abort.js';
import { InFlightList } from '../pipeline/in-flight-list.js';
import { isClosing } from './lingering-close.js';

export interface BodyLimits {
  /** Largest body in bytes of an API route (413 above it); the other families' caps are smaller (registry.ts). */
  readonly bodyLimit: number;
  /** Longest time from the request's head to its body's last byte (408 after it). */
  readonly bodyTimeoutMs: number;
  /** Bytes of all bodies being read or held at once (503 above it). */
  readonly maxInflightBodyBytes: number;
}

/** Large bodies' pooled memory is given back once no large body came for this long (body-pool.ts). */
const POOL_IDLE_MS = 30_000;

interface ReadInProgress {
  readonly req: IncomingMessage;
  readonly socket: Socket;
  readonly deadline: number;
  fail(err: GatewayError): void;
}

export class BodyIntake {
  private readonly reads = new InFlightList<ReadInProgress>();
  /** Bytes received of the bodies being read now, and of those read whose requests are not answered yet. */
  private held = 0;
  private readonly sweeper: NodeJS.Timeout;
  /** The cap of each body family but the API routes' (never above server.body_limit). */
  private readonly controlLimit: number;
  private readonly openLimit: number;

  constructor(
    private readonly limits: BodyLimits,
    private readonly pool: BodyPool,
  ) {
    // A fraction of the timeout, so a body is cut within ~25% of it; at most once a second.
    const every = Math.max(10, Math.min(1000, Math.floor(limits.bodyTimeoutMs / 4)));
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref();
    this.controlLimit = Math.min(CONTROL_BODY_LIMIT, limits.bodyLimit);
    this.openLimit = Math.min(OPEN_BODY_LIMIT, limits.bodyLimit);
  }

  /** Bytes being read or held right now (for tests and metrics). */
  get inflightBytes(): number {
    return this.held;
  }

  /**
   * The body of `req`, to be read when asked. Until it was read whole, the answer closes the connection
   * (`res.shouldKeepAlive` false): a body left unread (401, 413, 408, 503) must not be read to keep the
   * connection, and after a broken one the connection's framing cannot be trusted. `family` is the endpoint's
   * (registry.ts): its cap, not the API routes', bounds the read.
   */
  source(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean, family?: BodyFamily): BodySource {
    const limit = family === undefined ? this.limits.bodyLimit : family === 'control' ? this.controlLimit : this.openLimit;
    const keepAlive = res.shouldKeepAlive;
    res.shouldKeepAlive = false;
    let counted = 0;
    return {
      read: (abort) =>
        new Promise<BodyBytes>((resolve, reject) => {
          this.read(req, limit, expectsContinue ? res : null, abort, (err, body) => {
            if (err !== null) {
              reject(err);
              return;
            }
            counted = body.length;
            // Unless the connection's close was decided meanwhile (bytes after this request it could not parse).
            res.shouldKeepAlive = keepAlive && !isClosing(req.socket);
            resolve(body);
          });
        }),
      release: () => {
        this.held -= counted;
        counted = 0;
      },
    };
  }

  /**
   * Ends the body read in progress on `socket` with `err` (its chain answers it); false when there is none. A body
   * that has all arrived is not the one at fault (its 'end' is on its way; what failed came after it).
   */
  fail(socket: Socket, err: GatewayError): boolean {
    for (const read of this.reads.values()) {
      if (read.socket !== socket || read.req.complete) continue;
      read.fail(err);
      return true;
    }
    return false;
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  /** `waiting`: the response of a request that waits for our go (Expect: 100-continue) before it sends its body. */
  private read(
    req: IncomingMessage,
    limit: number,
    waiting: ServerResponse | null,
    abort: ClientAbort,
    done: (err: GatewayError | null, body: BodyBytes) => void,
  ): void {
    // A request whose client left (or that the shutdown ended) before its body was asked for: its 'close' has
    // been, and no 'end' will come.
    if (abort.aborted || req.destroyed) {
      done(abort.byShutdown ? shuttingDownError() : clientClosed(), EMPTY);
      return;
    }
    // A body that says how large it is and would not fit is refused before any of it is read (and before a
    // client that waits for our go is told to send it).
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      done(tooLarge(), EMPTY);
      return;
    }
    if (declared > 0 && this.held + declared > this.limits.maxInflightBodyBytes) {
      done(busy(), EMPTY);
      return;
    }
    // Only an admitted request that fits is told to send its body.
    waiting?.writeContinue();
    const parts: Buffer[] = [];
    let size = 0;
    let finished = false;
    const finish = (err: GatewayError | null): void => {
      if (finished) return;
      finished = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onGone);
      untrack();
      offAbort();
      if (err !== null) {
        this.held -= size;
        // What was read is dropped, and so is whatever still comes until the answer closes the connection
        // (lingering-close.ts): flowing with no listener, the request's bytes are discarded as they arrive.
        req.resume();
        done(err, EMPTY);
        return;
      }
      done(null, BodyBytes.fromReads(parts, size, this.pool));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      this.held += chunk.length;
      if (size > limit) finish(tooLarge());
      else if (this.held > this.limits.maxInflightBodyBytes) finish(busy());
      else parts.push(chunk);
    };
    const onEnd = (): void => finish(null);
    const onGone = (): void => finish(clientClosed());
    const untrack = this.reads.add({ req, socket: req.socket, deadline: Date.now() + this.limits.bodyTimeoutMs, fail: finish });
    // The shutdown's end of in-flight requests ends their reads too (runtime.ts waits for every request to finish).
    const offAbort = abort.onAbort(() => finish(abort.byShutdown ? shuttingDownError() : clientClosed()));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('close', onGone);
  }

  private sweep(): void {
    const now = Date.now();
    this.pool.dropIdle(now, POOL_IDLE_MS);
    if (this.reads.size === 0) return;
    for (const read of this.reads.values()) {
      if (read.deadline <= now) {
        read.fail(
          new GatewayError('GW_ERR_REQUEST_TIMEOUT', `The request body did not arrive within ${this.limits.bodyTimeoutMs} ms.`),
        );
      }
    }
  }
}

const EMPTY = BodyBytes.of(Buffer.alloc(0));

function tooLarge(): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_TOO_LARGE', 'The request body is larger than this gateway accepts.');
}

function clientClosed(): GatewayError {
  return new GatewayError('GW_ERR_CLIENT_CLOSED', 'the client closed the request before its body was read');
}

function busy(): GatewayError {
  return new GatewayError('GW_ERR_INTAKE_BUSY', 'The gateway is reading too many request bodies at once; retry shortly.', {
    retryAfter: 1,
  });
}
