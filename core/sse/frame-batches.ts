// Upstream bytes to the client's frames in one lazy loop: each upstream read is parsed into frames and passed
// through one synchronous FrameTransform (the relay's guard, or a translation), so a chunk costs one await
// however many steps apply, instead of a promise and a microtask hop per frame in each of a chain of async
// generators (parse, guard, translate). The socket reads and writes still cost more than all of it (bench/README.md).

import type { SseFrame } from './frame.js';
import { SseFrameParser } from './frame-parser.js';
import { pulledBody, type Chunks, type PulledBody } from './pulled-body.js';

/** What happens to the frames between the upstream and the client; every method is synchronous. */
export interface FrameTransform {
  /** The frames one upstream read completed, in order: the frames for the client (the same array, or others). */
  push(frames: readonly SseFrame[]): readonly SseFrame[];
  /** The upstream ended cleanly (its unterminated last frame, if any, was pushed first): the closing frames. */
  end(): readonly SseFrame[];
  /** Reading the upstream, or push/end, failed: the closing frames (an in-band error), or throw to give up. */
  fail(err: unknown): readonly SseFrame[];
  /** True once the stream is complete without the upstream's end (an upstream error event): reading stops. */
  readonly done: boolean;
}

const NO_FRAMES: readonly SseFrame[] = [];

/**
 * How the relay loop (pipeline/run.ts) reads a stream's batches, its one way: poll, then take. Made by
 * frameBatches().
 */
export interface FrameSource {
  /**
   * True when take() has the next batch now (or returns null: the end); false when it has not, and `onReady` is
   * called, in a microtask of its own, once it has. Throws what the stream fails with.
   */
  poll(onReady: () => void): boolean;
  take(): readonly SseFrame[] | null;
  /** Stops reading: the upstream is closed, a reader waiting is called back and finds the end. */
  return(): Promise<unknown>;
}

/** Passes every frame on unchanged; a failure is rethrown. */
export const PASS_THROUGH: FrameTransform = {
  done: false,
  push: (frames) => frames,
  end: () => NO_FRAMES,
  fail(err) {
    throw err;
  },
};

/**
 * Lazy: one upstream chunk is read per pull, so backpressure and the client's abort reach the upstream; closing
 * the iterator early (return()) closes the upstream body. Yields only non-empty batches.
 */
export function frameBatches(body: Chunks, transform: FrameTransform): FrameSource & AsyncIterableIterator<readonly SseFrame[]> {
  return new FrameBatches(pulledBody(body), transform);
}

const READING = 0;
const DONE = 1;
const DONE_RESULT: IteratorResult<readonly SseFrame[]> = { value: undefined, done: true };

/**
 * The one reader of a stream's batches, polled (FrameSource): the relay loop calls poll() and take(), nothing
 * else. Not an async generator: a suspended generator keeps its loop's locals (the last chunk, its frames and
 * their strings) while it waits for the next read, and on a stream paced 100 ms or more apart those outlive two
 * scavenges and are promoted to V8's old generation. Nor a promise per read: a promise pending through a paced
 * wait is promoted too, with whatever it resolves with (docs/performance.md, "The relay loop and the garbage
 * collector"). So a wait is the body's armed callback (a function made once), and the reader is called back in a
 * microtask of its own; nothing of a read is kept once its batch is handed over. next() and pull() are promises
 * around poll() for other readers (and tests): one at a time, as `for await` calls them. A return() while a read
 * is under way closes the upstream at once, and a reader waiting is called back and finds the end.
 */
class FrameBatches implements AsyncIterableIterator<readonly SseFrame[]>, FrameSource {
  private readonly parser = new SseFrameParser();
  private state = READING;
  /** The frames of the unterminated last frame, kept if end() then fails (a stream cut before its terminal
   * event): they go out before the closing error, as every earlier frame did. */
  private tail: readonly SseFrame[] = NO_FRAMES;
  /** The batch poll() made ready, until take(). */
  private ready: readonly SseFrame[] | null = null;
  /** The waiting reader's callback. */
  private notify: (() => void) | null = null;

  constructor(
    private readonly body: PulledBody,
    private readonly transform: FrameTransform,
  ) {}

  [Symbol.asyncIterator](): AsyncIterableIterator<readonly SseFrame[]> {
    return this;
  }

  /** poll() as a promise, with the batch as its value (for readers other than the relay loop). */
  next(): Promise<IteratorResult<readonly SseFrame[]>> {
    return this.pull().then(this.toResult);
  }

  /** poll() as a promise that resolves, with nothing, once take() has the next batch (or the end). */
  pull(): Promise<void> {
    return new Promise((resolve, reject) => {
      const step = (): void => {
        try {
          if (this.poll(step)) resolve();
        } catch (err) {
          reject(err);
        }
      };
      step();
    });
  }

  readonly poll = (onReady: () => void): boolean => {
    // A batch not yet taken stays the next one (poll twice without take() loses nothing).
    if (this.ready !== null) return true;
    const body = this.body;
    while (this.state === READING) {
      let armed: boolean;
      try {
        armed = body.arm(this.onArrival);
      } catch (err) {
        this.onFail(err);
        break;
      }
      if (armed) {
        this.notify = onReady;
        return false;
      }
      const chunk = this.takeChunk();
      if (chunk === null || this.step(chunk)) break;
    }
    return true;
  };

  private readonly onArrival = (): void => {
    if (this.notify !== null) queueMicrotask(this.callReader);
  };

  private readonly callReader = (): void => {
    const notify = this.notify;
    this.notify = null;
    notify?.();
  };

  take(): readonly SseFrame[] | null {
    const out = this.ready;
    this.ready = null;
    return out;
  }

  private readonly toResult = (): IteratorResult<readonly SseFrame[]> => {
    const out = this.take();
    return out === null ? DONE_RESULT : { value: out, done: false };
  };

  /** The body's chunk, or null when taking it threw the upstream's failure (handed to onFail). */
  private takeChunk(): IteratorResult<Uint8Array> | null {
    try {
      return this.body.take();
    } catch (err) {
      this.onFail(err);
      return null;
    }
  }

  private onFail(err: unknown): void {
    if (this.state !== READING) return;
    // The upstream's own failure: nothing to close.
    this.offer(this.failed(err, false));
  }

  /** One read through the parser and the transform; true when take() has a batch now or the stream is over. */
  private step(chunk: IteratorResult<Uint8Array>): boolean {
    let out: readonly SseFrame[];
    try {
      out = this.frames(chunk);
    } catch (err) {
      // The parser or transform threw: as with `for await`, the upstream is closed, unless it had ended.
      out = this.failed(err, this.state === READING);
    }
    this.offer(out);
    return this.ready !== null || this.state !== READING;
  }

  private offer(out: readonly SseFrame[]): void {
    if (out.length > 0) this.ready = out;
  }

  async return(): Promise<IteratorResult<readonly SseFrame[]>> {
    if (this.state === READING) {
      this.state = DONE;
      // A reader waiting for a read is called back now: it finds the end.
      if (this.notify !== null) queueMicrotask(this.callReader);
      await this.close();
    }
    return DONE_RESULT;
  }

  /** The frames one read gives the client; at the upstream's end, the closing frames. */
  private frames(chunk: IteratorResult<Uint8Array>): readonly SseFrame[] {
    if (chunk.done === true) {
      this.state = DONE;
      const rest = this.parser.end();
      if (rest.length > 0) this.tail = this.transform.push(rest);
      return this.transform.done ? this.tail : concat(this.tail, this.transform.end());
    }
    const frames = this.parser.push(chunk.value);
    if (frames.length === 0) return NO_FRAMES;
    const out = this.transform.push(frames);
    if (this.transform.done) {
      // Complete without the upstream's end: the rest of the body is not wanted.
      this.state = DONE;
      void this.close();
    }
    return out;
  }

  /** A failed read, or a parser or transform that threw: the transform's closing frames (or its error). */
  private failed(err: unknown, closeUpstream: boolean): readonly SseFrame[] {
    this.state = DONE;
    if (closeUpstream) void this.close();
    return concat(this.tail, this.transform.fail(err));
  }

  private async close(): Promise<void> {
    try {
      await this.body.return?.();
    } catch {
      // Closing is a courtesy to the upstream; its own failure changes nothing for the client.
    }
  }
}

function concat(a: readonly SseFrame[], b: readonly SseFrame[]): readonly SseFrame[] {
  return a.length === 0 ? b : b.length === 0 ? a : [...a, ...b];
}
