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

/**
 * A body that hands its chunks over through a field rather than as a promise's value (UpstreamBody):
 * wait() is null when take() has something now, else it resolves, with nothing, once it has.
 */
export interface PulledBody {
  wait(): Promise<void> | null;
  /** wait() without a promise: false when take() has something now, else true and `onArrival` is called once it has. */
  arm(onArrival: () => void): boolean;
  take(): IteratorResult<Uint8Array>;
}

/** The relay loop's way to read batches (pipeline/run.ts): see FrameBatches.pull() and poll(). */
export interface PulledFrames {
  /** Resolves, with nothing, once take() has the next batch (or, at the end, will return null). */
  pull(): Promise<void>;
  /**
   * pull() without a promise, where the body allows it (null where it does not: use pull()): true when take() has
   * the next batch now (or returns null: the end); false when it has not, and `onReady` is called, in a microtask
   * of its own, once it has. Throws what pull() would reject with.
   */
  readonly poll: ((onReady: () => void) => boolean) | null;
  take(): readonly SseFrame[] | null;
}

export function isPulledFrames(source: object): source is PulledFrames {
  return source instanceof FrameBatches;
}

/**
 * UpstreamBody is the one such body. The relay polls it (arm); wait() serves pull() and next(), for any other
 * reader of the batches (and their tests). A body with wait/take but no arm is read through next().
 */
function isPulledBody(body: object): body is PulledBody {
  const b = body as Partial<PulledBody>;
  return typeof b.wait === 'function' && typeof b.arm === 'function' && typeof b.take === 'function';
}

const RESOLVED: Promise<void> = Promise.resolve();

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
 * parser's unfinished frame and the pending read's promise (which resolves with nothing: pull()). One pull() or
 * next() at a time, as `for await` and the relay call them: unlike a generator's, overlapping calls are not
 * queued. A return() while a read is under way closes the upstream at once; that read then ends the pending
 * pull() or next() as the end. The promises' handlers are made once (an async method that awaits allocated
 * ~0.7 KB per read).
 */
class FrameBatches implements AsyncIterableIterator<readonly SseFrame[]>, PulledFrames {
  private readonly parser = new SseFrameParser();
  private state = READING;
  /** The frames of the unterminated last frame, kept if end() then fails (a stream cut before its terminal
   * event): they go out before the closing error, as every earlier frame did. */
  private tail: readonly SseFrame[] = NO_FRAMES;
  /** The batch pull() made ready, until take(). */
  private ready: readonly SseFrame[] | null = null;
  private readonly pulled: PulledBody | null;
  /** The poll()ing reader's callback while it waits for a read. */
  private notify: (() => void) | null = null;
  readonly poll: ((onReady: () => void) => boolean) | null;

  constructor(
    private readonly body: AsyncIterator<Uint8Array>,
    private readonly transform: FrameTransform,
  ) {
    this.pulled = isPulledBody(body) ? body : null;
    this.poll = this.pulled === null ? null : this.pollBody;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<readonly SseFrame[]> {
    return this;
  }

  next(): Promise<IteratorResult<readonly SseFrame[]>> {
    return this.pull().then(this.toResult);
  }

  /**
   * Reads until a batch is ready for take(), or the stream is over. The batch waits in this object, not in the
   * promise's value: a promise pending through a paced stream's wait (a second, say) outlives two scavenges and
   * is promoted to the old generation, and the value it then resolves with (the read, its frames and their
   * strings) is promoted with it at the next scavenge, garbage only a full GC frees (~0.8 KB per chunk at a
   * chunk a second; sampling heap profile, bench/README.md, seventh session). UpstreamBody hands its chunks over
   * the same way (wait/take); another body's chunk still comes as its read's value.
   */
  pull(): Promise<void> {
    // A batch not yet taken stays the next one (pull() twice without take() loses nothing).
    if (this.ready !== null) return RESOLVED;
    const pulled = this.pulled;
    try {
      while (this.state === READING) {
        if (pulled === null) return this.read().then(this.onRead, this.onFail);
        let waiting: Promise<void> | null;
        try {
          waiting = pulled.wait();
        } catch (err) {
          this.onFail(err);
          break;
        }
        if (waiting !== null) return waiting.then(this.onWake, this.onFail);
        const chunk = this.takeChunk(pulled);
        if (chunk === null || this.step(chunk)) break;
      }
    } catch (err) {
      // The transform's fail() gave up (it rethrew): the stream fails as a rejected read would make it.
      return Promise.reject(err);
    }
    return RESOLVED;
  }

  /**
   * PulledFrames.poll: pull() for a reader driven by a callback. A paced stream's reads are each a wait of, say, a
   * second; a promise pending through it (pull()'s, its reaction, the awaiting function's closures: ~0.5 KB)
   * outlives two scavenges and is promoted, ~0.5 KB of old-generation garbage per chunk (sampling heap profile
   * at 9,500 streams at a chunk a second, bench/README.md). Here the wait is the body's field holding a function
   * made once (UpstreamBody.arm), and the reader is called back in a microtask, as a resolved promise would
   * have resumed it: never from inside the upstream's data callback.
   */
  private readonly pollBody = (onReady: () => void): boolean => {
    if (this.ready !== null) return true;
    const pulled = this.pulled as PulledBody;
    while (this.state === READING) {
      let armed: boolean;
      try {
        armed = pulled.arm(this.onArrival);
      } catch (err) {
        this.onFail(err);
        break;
      }
      if (armed) {
        this.notify = onReady;
        return false;
      }
      const chunk = this.takeChunk(pulled);
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

  private read(): Promise<IteratorResult<Uint8Array>> {
    try {
      return this.body.next();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private readonly toResult = (): IteratorResult<readonly SseFrame[]> => {
    const out = this.take();
    return out === null ? DONE_RESULT : { value: out, done: false };
  };

  private readonly onWake = (): Promise<void> | undefined => {
    // Closed by return() while this read was under way: what it brought is not wanted.
    if (this.state !== READING) return undefined;
    const chunk = this.takeChunk(this.pulled as PulledBody);
    return chunk === null || this.step(chunk) ? undefined : this.pull();
  };

  /** The pulled body's chunk, or null when taking it threw the upstream's failure (handed to onFail). */
  private takeChunk(pulled: PulledBody): IteratorResult<Uint8Array> | null {
    try {
      return pulled.take();
    } catch (err) {
      this.onFail(err);
      return null;
    }
  }

  private readonly onRead = (chunk: IteratorResult<Uint8Array>): Promise<void> | undefined => {
    if (this.state !== READING) return undefined;
    // A read that completed no frame: read on. Each such read links one more promise into this pull()'s
    // result until a frame completes; reads carry bytes, so the chain is bounded by the unfinished frame.
    return this.step(chunk) ? undefined : this.pull();
  };

  private readonly onFail = (err: unknown): undefined => {
    if (this.state !== READING) return undefined;
    // The upstream's own failure: nothing to close.
    this.offer(this.failed(err, false));
    return undefined;
  };

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
