// An HTTP server on a free loopback port, for the fakes that stand in for upstreams: start, url, close.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a fake upstream received it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path with its query string, as received. */
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  /** The parsed JSON body; empty when the body was not JSON. */
  readonly body: Record<string, unknown>;
  readonly raw: Buffer;
}

/** Reads the whole request body and records it. */
export async function recordRequest(req: IncomingMessage): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  } catch {
    // recorded as empty
  }
  return { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, raw };
}

export abstract class LoopbackHttpServer {
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Closes open connections too, so nothing in flight keeps the server up. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export interface FrameStreamOptions {
  /** Destroy the connection after this many frames, as an upstream that breaks mid-stream. */
  readonly breakAfter?: number | undefined;
  /** A pause after each frame. */
  readonly delayMs?: number | undefined;
}

/**
 * Writes SSE frames one by one on a 200 event-stream response (the headers given), ends it or breaks it off;
 * returns the exact bytes written, for byte-equality checks.
 */
export async function streamFrames(
  res: ServerResponse,
  headers: Record<string, string>,
  frames: readonly string[],
  options: FrameStreamOptions,
): Promise<Buffer> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
  const sent: Buffer[] = [];
  for (let i = 0; i < frames.length; i++) {
    if (options.breakAfter !== undefined && i === options.breakAfter) {
      // Node sends a response's writes on the next tick; destroying in this tick would discard them.
      await new Promise((r) => setImmediate(r));
      res.socket?.destroy();
      return Buffer.concat(sent);
    }
    if (res.destroyed) return Buffer.concat(sent);
    const frame = Buffer.from(frames[i] ?? '', 'utf8');
    sent.push(frame);
    res.write(frame);
    if (options.delayMs !== undefined && options.delayMs > 0) await new Promise((r) => setTimeout(r, options.delayMs));
  }
  res.end();
  return Buffer.concat(sent);
}
