// Any body of chunks (an async iterator: the mock's, a test's) read the way the relay reads an UpstreamBody: armed
// with a callback, its chunk taken from a field (pulled-body.ts), so the relay has one way to read an upstream.

import type { PulledBody } from './pulled-body.js';

const NONE = Symbol('none');

export class IteratorBody implements PulledBody {
  #result: IteratorResult<Uint8Array> | null = null;
  #error: unknown = NONE;
  #reading = false;
  #onArrival: (() => void) | null = null;

  constructor(private readonly iterator: AsyncIterator<Uint8Array>) {}

  arm(onArrival: () => void): boolean {
    if (this.#result !== null || this.#error !== NONE) return false;
    this.#onArrival = onArrival;
    if (this.#reading) return true;
    this.#reading = true;
    let next: Promise<IteratorResult<Uint8Array>>;
    try {
      next = this.iterator.next();
    } catch (err) {
      this.#reading = false;
      this.#error = err;
      return false;
    }
    next.then(
      (result) => this.#arrived(result, NONE),
      (err: unknown) => this.#arrived(null, err),
    );
    return true;
  }

  take(): IteratorResult<Uint8Array> {
    if (this.#error !== NONE) {
      const err = this.#error;
      this.#error = NONE;
      throw err;
    }
    const result = this.#result;
    if (result === null) throw new Error('IteratorBody.take() with nothing arrived: arm() first');
    this.#result = null;
    return result;
  }

  async return(): Promise<unknown> {
    return this.iterator.return?.();
  }

  #arrived(result: IteratorResult<Uint8Array> | null, err: unknown): void {
    this.#reading = false;
    this.#result = result;
    this.#error = err;
    const onArrival = this.#onArrival;
    this.#onArrival = null;
    onArrival?.();
  }
}
