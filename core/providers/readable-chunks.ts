// An upstream body as an async iterable fed by 'data' events. Node's own Readable iterator costs several
// promises and a 'readable' round trip per chunk; this one costs a promise only when the reader waits.

import type { Readable } from 'node:stream';

/** Chunks queued unread before the upstream is paused, so a slow client slows the upstream socket. */
const HIGH_WATER = 16;

const DONE: IteratorResult<Uint8Array> = { value: undefined, done: true };

export function readableChunks(body: Readable): AsyncIterable<Uint8Array> {
  return { [Symbol.asyncIterator]: () => new ChunkIterator(body) };
}

class ChunkIterator implements AsyncIterator<Uint8Array> {
  private queue: Uint8Array[] = [];
  private head = 0;
  private ended = false;
  private failure: { error: unknown } | null = null;
  private waiting: { resolve(r: IteratorResult<Uint8Array>): void; reject(err: unknown): void } | null = null;

  constructor(private readonly body: Readable) {
    body.on('data', this.onData);
    body.on('end', this.onEnd);
    body.on('error', this.onError);
    body.on('close', this.onClose);
    // The listeners stay for the body's life: an 'error' after the reader left must still have a listener, or it
    // would crash the process; each handler does nothing once the outcome is known.
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head++] as Uint8Array;
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
        if (this.body.isPaused() && !this.ended) this.body.resume();
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.failure !== null) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The reader stopped early (client gone, upstream error event): the upstream body is not wanted any more. */
  return(): Promise<IteratorResult<Uint8Array>> {
    if (!this.ended) this.body.destroy();
    return Promise.resolve(DONE);
  }

  private readonly onData = (chunk: Uint8Array): void => {
    const waiting = this.waiting;
    if (waiting !== null) {
      this.waiting = null;
      waiting.resolve({ value: chunk, done: false });
      return;
    }
    this.queue.push(chunk);
    if (this.queue.length - this.head >= HIGH_WATER) this.body.pause();
  };

  private readonly onEnd = (): void => {
    this.ended = true;
    this.settle();
  };

  private readonly onError = (err: unknown): void => {
    this.fail(err);
  };

  private readonly onClose = (): void => {
    // Destroyed without 'end' or 'error': the body was cut off.
    if (!this.ended) this.fail(new Error('the upstream body closed before its end'));
  };

  private fail(error: unknown): void {
    if (this.failure === null && !this.ended) this.failure = { error };
    this.settle();
  }

  private settle(): void {
    const waiting = this.waiting;
    if (waiting === null) return;
    this.waiting = null;
    if (this.failure !== null) waiting.reject(this.failure.error);
    else waiting.resolve(DONE);
  }
}
