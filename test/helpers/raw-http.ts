// HTTP/1.1 spoken by hand over a socket, for what no client library sends: bodies announced and never sent,
// malformed framing, oversized headers. Collects whatever the server answers until it closes the connection.

import { connect, type Socket } from 'node:net';

export interface RawExchange {
  readonly socket: Socket;
  /** Everything the server sent so far (latin1). */
  readonly received: () => string;
  /** Resolves when the server closed the connection (or it broke), with what it sent. */
  readonly closed: Promise<string>;
  /** Resolves once the received text contains `marker`. */
  waitFor(marker: string): Promise<string>;
}

/** Connects to `url`'s host and port and writes `head` (and nothing else yet). */
export function openRaw(url: string, head: string | Buffer): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.off('error', reject);
      let text = '';
      const waiters: { marker: string; resolve: (t: string) => void }[] = [];
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        for (const w of waiters.splice(0)) {
          if (text.includes(w.marker)) w.resolve(text);
          else waiters.push(w);
        }
      });
      // Writes after the server closed fail; that is part of what these tests provoke.
      socket.on('error', () => undefined);
      const closed = new Promise<string>((done) => socket.once('close', () => done(text)));
      socket.write(head);
      resolve({
        socket,
        received: () => text,
        closed,
        waitFor: (marker) =>
          text.includes(marker) ? Promise.resolve(text) : new Promise((done) => waiters.push({ marker, resolve: done })),
      });
    });
    socket.once('error', reject);
  });
}

/** Writes `total` bytes of body in 1 MB pieces, honouring backpressure, until done or the connection closes; returns the bytes written. */
export async function writeBody(socket: Socket, total: number): Promise<number> {
  const piece = Buffer.alloc(1024 * 1024, 0x61);
  let written = 0;
  while (written < total && !socket.destroyed && socket.writable) {
    const n = Math.min(piece.length, total - written);
    const ok = socket.write(n === piece.length ? piece : piece.subarray(0, n));
    written += n;
    if (!ok) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      });
    }
  }
  return written;
}

/** The status code and the JSON body of a raw HTTP/1.1 answer (the first one in `text`). */
export function parseAnswer(text: string): { status: number; headers: string; body: Record<string, unknown> } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  const at = text.indexOf('\r\n\r\n');
  const headers = at < 0 ? text : text.slice(0, at);
  const rest = at < 0 ? '' : text.slice(at + 4);
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(rest) as Record<string, unknown>;
  } catch {
    // not JSON (or not all of it): left empty
  }
  return { status, headers, body };
}
