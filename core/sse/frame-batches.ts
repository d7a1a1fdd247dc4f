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
export async function* frameBatches(body: AsyncIterable<Uint8Array>, transform: FrameTransform): AsyncGenerator<readonly SseFrame[]> {
  const parser = new SseFrameParser();
  let last: readonly SseFrame[];
  // The unterminated last frame's output, kept if end() then fails (a stream cut before its terminal event):
  // it goes out before the closing error, as every earlier frame did.
  let tail: readonly SseFrame[] = NO_FRAMES;
  try {
    for await (const chunk of body) {
      const frames = parser.push(chunk);
      if (frames.length === 0) continue;
      const out = transform.push(frames);
      if (out.length > 0) yield out;
      if (transform.done) return;
    }
    const rest = parser.end();
    if (rest.length > 0) tail = transform.push(rest);
    last = transform.done ? tail : concat(tail, transform.end());
  } catch (err) {
    last = concat(tail, transform.fail(err));
  }
  if (last.length > 0) yield last;
}

function concat(a: readonly SseFrame[], b: readonly SseFrame[]): readonly SseFrame[] {
  return a.length === 0 ? b : b.length === 0 ? a : [...a, ...b];
}
