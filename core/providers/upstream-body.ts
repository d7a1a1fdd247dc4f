// An upstream body as an async iterable, fed chunk by chunk by the HTTP client's handler. No Readable in
// between: Node's stream machinery (and its iterator's promises per chunk) cost more than the relaying itself;
// this costs a promise only when the reader waits.

/** Chunks queued unread before the upstream is paused, so a slow client slows the upstream socket. */
const HIGH_WATER = 16;

const DONE: IteratorResult<Uint8Array> = { value: undefined, done: true };

/** What the body needs from the connection it comes from. */
export interface BodySource {
  pause(): void;
  resume(): void;
  /** The reader stopped early: the rest of the body is not wanted. */
  cancel(): void;
}

export class UpstreamBody implements AsyncIterable<Uint8Array>, AsyncIterator<Uint8Array> {
  /** Arrived and not yet read; next() hands all of it over at once. */
  private queue: Uint8Array[] = [];
  private ended = false;
  private paused = false;
  private failure: { error: unknown } | null = null;
  /** The reader's pending next(), when it waits: its settle functions, kept as two fields (no object per wait). */
  private resolveWaiting: ((r: IteratorResult<Uint8Array>) => void) | null = null;
  private rejectWaiting: ((err: unknown) => void) | null = null;

  constructor(private readonly source: BodySource) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this;
  }

  /** The handler's side: one chunk arrived. */
  push(chunk: Uint8Array): void {
    if (this.ended || this.failure !== null) return;
    const resolve = this.resolveWaiting;
    if (resolve !== null) {
      this.resolveWaiting = this.rejectWaiting = null;
      resolve({ value: chunk, done: false });
      return;
    }
    this.queue.push(chunk);
    if (!this.paused && this.queue.length >= HIGH_WATER) {
      this.paused = true;
      this.source.pause();
    }
  }

  /** The handler's side: the body is complete. */
  end(): void {
    if (this.failure !== null) return;
    this.ended = true;
    this.settle();
  }

  /** The handler's side: the body broke off (reset, timeout, abort). Chunks already queued are read first. */
  fail(error: unknown): void {
    if (this.ended || this.failure !== null) return;
    this.failure = { error };
    this.settle();
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.queue.length > 0) {
      // Everything that arrived while the reader was busy, as one chunk: an upstream burst (a chunked SSE
      // body is one chunk per event) then costs one read of the loop, not one per event, and its first frames
      // do not wait behind a promise turn for every other one.
      const value = this.queue.length === 1 ? (this.queue[0] as Uint8Array) : Buffer.concat(this.queue);
      this.queue = [];
      if (this.paused) {
        this.paused = false;
        this.source.resume();
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.failure !== null) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.resolveWaiting = resolve;
      this.rejectWaiting = reject;
    });
  }

  /** The reader stopped early (client gone, a frame it refused): the upstream body is not wanted any more. */
  return(): Promise<IteratorResult<Uint8Array>> {
    if (!this.ended && this.failure === null) {
      this.failure = { error: new Error('the reader left') };
      this.queue = [];
      this.source.cancel();
    }
    // A read still waiting (the reader closed the body meanwhile) ends with it, or it would wait forever.
    const resolve = this.resolveWaiting;
    if (resolve !== null) {
      this.resolveWaiting = this.rejectWaiting = null;
      resolve(DONE);
    }
    return Promise.resolve(DONE);
  }

  private settle(): void {
    const resolve = this.resolveWaiting;
    const reject = this.rejectWaiting;
    if (resolve === null || reject === null) return;
    this.resolveWaiting = this.rejectWaiting = null;
    if (this.failure !== null) reject(this.failure.error);
    else resolve(DONE);
  }
}
