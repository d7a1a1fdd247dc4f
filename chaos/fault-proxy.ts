// An HTTP proxy in front of one fake upstream that injects the faults a real provider shows: the connection reset
// before the answer or in the middle of it, no answer at all (the gateway's timeout decides), and storms of 5xx or
// 429 answers in the provider's own error shape, or the provider down altogether (every request reset or answered
// 5xx). Everything else passes through as bytes, streams as they come. Asked to, it keeps each request's arrival.

import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type UpstreamFault = 'reset-before' | 'reset-mid' | 'timeout' | 'status-5xx' | 'status-429' | 'down';

/** A request as the proxy received it: when, what it met ('passed' or the fault), and the load's tag of it. */
export interface Arrival {
  readonly at: number;
  readonly met: string;
  /** The `x-chaos-request` header (chaos/load.ts): which client request this is; null without one. */
  readonly tag: string | null;
}

/** The header the load tags each request with; the gateway forwards it (an end-to-end header) to the upstream. */
export const TAG_HEADER = 'x-chaos-request';

/** The provider's error answer for a status: its headers and body. */
export type ErrorAnswer = (status: number) => { readonly headers: Readonly<Record<string, string>>; readonly body: string };

export interface FaultProxy {
  readonly name: string;
  readonly url: string;
  /** From now on, `share` of the requests (0..1) meet `fault`; null: none. */
  inject(fault: UpstreamFault | null, share?: number): void;
  /** Requests passed and faults injected, by kind. */
  readonly counts: Map<string, number>;
  /** Every request's arrival since `track()` (none before: a long run would keep them all). */
  readonly arrivals: Arrival[];
  track(): void;
  close(): Promise<void>;
}

export async function startFaultProxy(name: string, target: string, errorAnswer: ErrorAnswer, random: () => number): Promise<FaultProxy> {
  const origin = new URL(target);
  let fault: UpstreamFault | null = null;
  let share = 0;
  const counts = new Map<string, number>();
  const count = (what: string): void => void counts.set(what, (counts.get(what) ?? 0) + 1);
  const arrivals: Arrival[] = [];
  let tracking = false;
  const sockets = new Set<Socket>();

  /** Forwards the exchange; with `cutAt`, the connection dies halfway through that chunk (1: the first) of the answer. */
  const pass = (req: IncomingMessage, res: ServerResponse, cutAt: number | null): void => {
    const upstream = request(
      { host: origin.hostname, port: origin.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        let chunks = 0;
        let cut = false;
        answer.on('data', (chunk: Buffer) => {
          if (cut) return;
          if (cutAt !== null && ++chunks === cutAt) {
            cut = true;
            // Part of the answer went out; the connection dies under it, as a provider's load balancer drops it.
            // The reset waits until the part was read: a reset drops what the peer has not read yet, and the cut
            // would look like one before the answer.
            answer.destroy();
            res.write(chunk.subarray(0, Math.floor(chunk.length / 2)), () => setTimeout(() => req.socket.resetAndDestroy(), 100));
            return;
          }
          res.write(chunk);
        });
        // A body read to its end before the cut still ends here: after a cut it must not (the client would see a
        // short body properly closed, not a broken one).
        answer.on('end', () => {
          if (!cut) res.end();
        });
        answer.on('error', () => req.socket.destroy());
      },
    );
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
    // The gateway gave up (its timeout, its client gone): the upstream's work stops too.
    res.on('close', () => upstream.destroy());
  };

  const server: Server = createServer((req, res) => {
    const chosen = fault !== null && random() < share ? fault : null;
    // Down: every request fails, half of them reset before the answer, half answered 5xx.
    const now = chosen === 'down' ? (random() < 0.5 ? 'reset-before' : 'status-5xx') : chosen;
    count(now ?? 'passed');
    if (tracking) {
      const tag = req.headers[TAG_HEADER];
      arrivals.push({ at: Date.now(), met: now ?? 'passed', tag: typeof tag === 'string' ? tag : null });
    }
    switch (now) {
      case null:
        return pass(req, res, null);
      case 'reset-before':
        req.socket.resetAndDestroy();
        return;
      case 'reset-mid':
        return pass(req, res, 1 + Math.floor(random() * 4));
      case 'timeout':
        // Nothing is ever answered; the body is read so that the gateway's write completes.
        req.resume();
        return;
      case 'status-5xx':
      case 'status-429': {
        const status = now === 'status-429' ? 429 : random() < 0.5 ? 500 : 503;
        const answer = errorAnswer(status);
        req.resume();
        req.on('end', () => {
          res.writeHead(status, Object.assign({ 'content-type': 'application/json' }, answer.headers));
          res.end(answer.body);
        });
        return;
      }
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    name,
    url: `http://127.0.0.1:${port}${origin.pathname === '/' ? '' : origin.pathname}`,
    counts,
    arrivals,
    track() {
      tracking = true;
    },
    inject(next, nextShare = 0.5) {
      fault = next;
      share = next === null ? 0 : nextShare;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
