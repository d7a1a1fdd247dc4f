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
