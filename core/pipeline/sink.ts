// Where a response goes: implemented by the HTTP layer over the raw socket, so the pipeline never sees fastify.

export interface ResponseSink {
  /** True once the status line was sent; from then on errors must go in-band. */
  readonly started: boolean;
  /** A whole response. */
  send(status: number, headers: Readonly<Record<string, string>>, body: Buffer | string): void;
  /** Starts an SSE response: headers flushed at once, no compression, no buffering. */
  open(status: number, headers: Readonly<Record<string, string>>): void;
  /** Writes one frame; resolves when the socket accepts more (backpressure). */
  write(chunk: Uint8Array): Promise<void> | undefined;
  /** Between cork() and uncork() writes are held, and leave together as one write at uncork(). */
  cork(): void;
  uncork(): void;
  end(): void;
  /** Cuts the connection: a body that broke off after it began (and carries no in-band error) ends so. */
  abort?(): void;
}
