// Where a response goes: implemented by the HTTP layer over the raw socket, so the pipeline never sees fastify.

export interface ResponseSink {
  /** True once the status line was sent; from then on errors must go in-band. */
  readonly started: boolean;
  /**
   * A whole response. `overheadMs`: the value of x-gateway-overhead-ms (OVERHEAD_HEADER), when it is sent; set by the
   * sink in the one copy of the headers it makes anyway (a copy less per answer than merging it in before).
   */
  send(status: number, headers: Readonly<Record<string, string>>, body: Buffer | string, overheadMs?: string): void;
  /** Starts an SSE response: headers flushed at once, no compression, no buffering. `overheadMs` as for send. */
  open(status: number, headers: Readonly<Record<string, string>>, overheadMs?: string): void;
  /** Writes one frame; resolves when the socket accepts more (backpressure). */
  write(chunk: Uint8Array): Promise<void> | undefined;
  /** Between cork() and uncork() writes are held, and leave together as one write at uncork(). */
  cork(): void;
  uncork(): void;
  end(): void;
  /** Cuts the connection: a body that broke off after it began (and carries no in-band error) ends so. */
  abort?(): void;
}

/** The gateway's own part of the time to the answer's headers (docs/money.md). */
export const OVERHEAD_HEADER = 'x-gateway-overhead-ms';
