// An upstream body, fed chunk by chunk by the HTTP client's handler and read through the one reading protocol
// (sse/pulled-body.ts: arm, take, completed). No Readable in between: Node's stream machinery (and its iterator's
// promises per chunk) cost more than the relaying itself; this costs nothing per wait (the chunk waits in a field).

import type { PulledBody } from '../sse/pulled-body.js';

/** Chunks queued unread before the upstream is paused, so a slow client slows the upstream socket. */
const HIGH_WATER = 16;

const DONE: IteratorResult<Uint8Array> = { value: undefined, done: true };
const EMPTY = new Uint8Array(0);

/** What the body needs from the connection it comes from. */
export interface BodySource {
  pause(): void;
  resume(): void;
  /** The reader stopped early: the rest of the body is not wanted. */
  cancel(): void;
}

export class UpstreamBody implements PulledBody {
  /**
   * Arrived and not yet read (take() hands all of it over at once): the first chunk in a field, the
   * others, when the reader is slower, in an array made then. Not one array for the body's life: an array that
   * waited through a paced stream's pause is old, and a chunk put in it and taken out again was promoted with it
   * at the next scavenge (the array's slot keeps it until overwritten; frame-batches.ts, pull()).
   */
  private first: Uint8Array | null = null;
  private rest: Uint8Array[] | null = null;
  private ended = false;
  private paused = false;
  private failure: { error: unknown } | null = null;
  /** A wait()ing reader's wake-up: it resolves with nothing, the chunk stays here for take(). */
  private wake: (() => void) | null = null;

  constructor(private readonly source: BodySource) {}

  /** The handler's side: one chunk arrived. */
  push(chunk: Uint8Array): void {
    if (this.ended || this.failure !== null) return;
    const wake = this.wake;
    if (wake !== null) {
      this.wake = null;
      this.first = chunk;
      wake();
      return;
    }
    if (this.first === null) this.first = chunk;
    else (this.rest ??= []).push(chunk);
    if (!this.paused && this.rest !== null && this.rest.length + 1 >= HIGH_WATER) {
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

  /**
   * False when take() has something now (a chunk, the end or the failure); else true, and `onArrival` (a function the
   * reader made once, not one per wait) is called when it has. The chunk waits here, not in a promise's value, and
   * nothing is allocated per wait, so nothing is left to be promoted by one (docs/performance.md).
   */
  arm(onArrival: () => void): boolean {
    if (this.takeable()) return false;
    this.wake = onArrival;
    return true;
  }

  /**
   * What arm() said is there: the next chunk (all that is queued, as one: chunks that arrived between the wake
   * and this call join the one that woke the reader), the end, or the failure thrown.
   */
  take(): IteratorResult<Uint8Array> {
    if (this.first !== null) return { value: this.takeQueued(this.first), done: false };
    if (this.failure !== null) throw this.failure.error;
    if (this.ended) return DONE;
    throw new Error('UpstreamBody.take() with nothing arrived: arm() first');
  }

  /**
   * The whole body, when all of it has arrived and none of it was read (a small answer usually comes in the
   * same socket read as its headers): all queued chunks as one, and the body is then at its end. Null otherwise.
   */
  completed(): Uint8Array | null {
    if (!this.ended || this.failure !== null) return null;
    return this.first === null ? EMPTY : this.takeQueued(this.first);
  }

  /** The reader stopped early (client gone, a frame it refused): the upstream body is not wanted any more. */
  return(): Promise<IteratorResult<Uint8Array>> {
    if (!this.ended && this.failure === null) {
      this.failure = { error: new Error('the reader left') };
      this.first = this.rest = null;
      this.source.cancel();
    }
    // A read still waiting (the reader closed the body meanwhile) ends with it, or it would wait forever.
    this.wakeWaiting();
    return Promise.resolve(DONE);
  }

  /**
   * Everything that arrived while the reader was busy, as one chunk: an upstream burst (a chunked SSE body is one
   * chunk per event) then costs one read of the loop, not one per event, and its first frames do not wait behind
   * a promise turn for every other one.
   */
  private takeQueued(first: Uint8Array): Uint8Array {
    const rest = this.rest;
    const value = rest === null ? first : Buffer.concat([first, ...rest]);
    // Emptied, not only dropped: the array may have waited long enough to be old (see `first`).
    if (rest !== null) rest.length = 0;
    this.first = this.rest = null;
    if (this.paused) {
      this.paused = false;
      this.source.resume();
    }
    return value;
  }

  /** take() has something now: a chunk, the end, or the failure. */
  private takeable(): boolean {
    return this.first !== null || this.failure !== null || this.ended;
  }

  private wakeWaiting(): void {
    const wake = this.wake;
    if (wake === null) return;
    this.wake = null;
    wake();
  }

  private settle(): void {
    this.wakeWaiting();
  }
}
