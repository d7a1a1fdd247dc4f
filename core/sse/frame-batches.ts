// Upstream bytes to the client's frames in one lazy loop: each upstream read is parsed into frames and passed
// through one synchronous FrameTransform (the relay's guard, or a translation), so a chunk costs one await
// however many steps apply, instead of a promise and a microtask hop per frame in each of a chain of async
// generators (parse, guard, translate). The socket reads and writes still cost more than all of it (bench/README.md).

import type { SseFrame } from './frame.js';
import { SseFrameParser } from './frame-parser.js';

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
export function frameBatches(body: AsyncIterable<Uint8Array>, transform: FrameTransform): AsyncIterableIterator<readonly SseFrame[]> {
  return new FrameBatches(body[Symbol.asyncIterator](), transform);
}

const READING = 0;
const DONE = 1;
const DONE_RESULT: IteratorResult<readonly SseFrame[]> = { value: undefined, done: true };

/**
 * An iterator object rather than an async generator: a suspended generator keeps its loop's locals (the last
 * chunk, its frames and their strings) while it waits for the next read. On a stream paced 100 ms or more
 * apart those outlive two scavenges and V8 moves them to the old generation, garbage that only a full GC
 * frees. Here nothing of a read is kept once its batch is handed over; what lives between reads is the
 * parser's unfinished frame and the pending read's promise. One next() at a time, as `for await` and the relay
 * call it: unlike a generator's, overlapping calls are not queued. A return() while a read is under way closes
 * the upstream at once; that read then ends the pending next() as done.
 */
class FrameBatches implements AsyncIterableIterator<readonly SseFrame[]> {
  private readonly parser = new SseFrameParser();
  private state = READING;
  /** The frames of the unterminated last frame, kept if end() then fails (a stream cut before its terminal
   * event): they go out before the closing error, as every earlier frame did. */
  private tail: readonly SseFrame[] = NO_FRAMES;

  constructor(
    private readonly body: AsyncIterator<Uint8Array>,
    private readonly transform: FrameTransform,
  ) {}

  [Symbol.asyncIterator](): AsyncIterableIterator<readonly SseFrame[]> {
    return this;
  }

  next(): Promise<IteratorResult<readonly SseFrame[]>> {
    if (this.state !== READING) return Promise.resolve(DONE_RESULT);
    let read: Promise<IteratorResult<Uint8Array>>;
    try {
      read = this.body.next();
    } catch (err) {
      read = Promise.reject(err);
    }
    // then() with handlers made once, not an async method: an async call that awaits allocated ~0.7 KB per
    // read (its suspended frame and the await's promises; sampling heap profile), twice what this does.
    return read.then(this.onRead, this.onFail);
  }

  private readonly onRead = (chunk: IteratorResult<Uint8Array>): IteratorResult<readonly SseFrame[]> | Promise<IteratorResult<readonly SseFrame[]>> => {
    // Closed by return() while this read was under way: what it brought is not wanted.
    if (this.state !== READING) return DONE_RESULT;
    let out: readonly SseFrame[];
    try {
      out = this.read(chunk);
    } catch (err) {
      // The parser or transform threw: as with `for await`, the upstream is closed, unless it had ended.
      out = this.failed(err, this.state === READING);
    }
    if (out.length > 0) return { value: out, done: false };
    // A read that completed no frame: read on. Each such read links one more promise into this next()'s
    // result until a frame completes; reads carry bytes, so the chain is bounded by the unfinished frame.
    return this.next();
  };

  private readonly onFail = (err: unknown): IteratorResult<readonly SseFrame[]> => {
    if (this.state !== READING) return DONE_RESULT;
    // The upstream's own failure: nothing to close.
    const out = this.failed(err, false);
    return out.length > 0 ? { value: out, done: false } : DONE_RESULT;
  };

  async return(): Promise<IteratorResult<readonly SseFrame[]>> {
    if (this.state === READING) {
      this.state = DONE;
      await this.close();
    }
    return DONE_RESULT;
  }

  /** The frames one read gives the client; at the upstream's end, the closing frames. */
  private read(chunk: IteratorResult<Uint8Array>): readonly SseFrame[] {
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
