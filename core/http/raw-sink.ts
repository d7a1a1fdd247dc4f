// ResponseSink over Node's ServerResponse: one write per frame, flushed at once, backpressure honoured.

import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { OVERHEAD_HEADER, type ResponseSink } from '../pipeline/sink.js';
import { closeLingering } from './lingering-close.js';

const SSE_HEADERS = {
  'cache-control': 'no-cache',
  // Tells nginx and similar proxies in front of us not to buffer the stream.
  'x-accel-buffering': 'no',
} as const;

export class RawSink implements ResponseSink {
  private draining: Promise<void> | null = null;

  /**
   * `requestId` goes out as x-request-id (OpenAI's SDK reads it) and request-id (Anthropic's): the id of the
   * usage record. Given to writeHead with the other headers, not set ahead with setHeader, which would send
   * every response down Node's slower merge-and-revalidate path. The header objects are made with Object.assign,
   * not `{ ...headers, more }`: docs/performance.md, "Object literals V8 builds in its runtime".
   */
  constructor(
    private readonly res: ServerResponse,
    private readonly requestId: string,
  ) {}

  get started(): boolean {
    return this.res.headersSent;
  }

  send(status: number, headers: Readonly<Record<string, string>>, body: Buffer | string, overheadMs?: string): void {
    if (this.res.destroyed) return;
    // Not kept alive: the body was not read whole (refused before it, or broken off; body-intake.ts) and the
    // client may still be sending it, or the client asked to close.
    if (!this.res.shouldKeepAlive) closeLingering(this.res);
    // One copy, the gateway's headers set on it (not a literal merged in: one object less per answer).
    const sent: Record<string, string> = Object.assign({}, headers);
    sent['content-length'] = String(Buffer.byteLength(body));
    sent['x-request-id'] = this.requestId;
    sent['request-id'] = this.requestId;
    if (overheadMs !== undefined) sent[OVERHEAD_HEADER] = overheadMs;
    this.res.writeHead(status, sent);
    this.res.end(body);
  }

  open(status: number, headers: Readonly<Record<string, string>>, overheadMs?: string): void {
    this.res.socket?.setNoDelay(true);
    // A file (a `bytes` result) keeps its own caching headers; only an event stream is marked unbuffered.
    const stream = headers['content-type']?.startsWith('text/event-stream') === true;
    const sent: Record<string, string> = Object.assign({}, headers, stream ? SSE_HEADERS : undefined);
    sent['x-request-id'] = this.requestId;
    sent['request-id'] = this.requestId;
    if (overheadMs !== undefined) sent[OVERHEAD_HEADER] = overheadMs;
    this.res.writeHead(status, sent);
    this.res.flushHeaders();
  }

  write(chunk: Uint8Array): Promise<void> | undefined {
    if (this.res.destroyed) throw new Error('client connection closed');
    if (this.res.write(chunk)) return undefined;
    // One wait per full buffer, however many frames of a batch are written into it.
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  cork(): void {
    this.res.cork();
  }

  uncork(): void {
    // end() uncorks by itself (an error path may have ended the response in between).
    if (this.res.writableCorked > 0) this.res.uncork();
  }

  end(): void {
    if (!this.res.destroyed) this.res.end();
  }

  abort(): void {
    this.res.destroy();
  }

  private async drain(): Promise<void> {
    // 'close' also ends the wait, so a client that vanishes while we wait does not hang the stream; the
    // listener of the event that did not fire is removed, or they would pile up over a long stream.
    const done = new AbortController();
    try {
      await Promise.race([once(this.res, 'drain', { signal: done.signal }), once(this.res, 'close', { signal: done.signal })]);
    } finally {
      done.abort();
    }
  }
}
