// The one way the gateway reads an upstream body, streams, files and whole answers alike: arm a callback, then take
// what arrived from a field (and, for a whole answer, take all of it at once when it has all arrived). UpstreamBody
// (the HTTP client's) is read as it is; any other body of chunks (the mock's generators, a test's) through
// IteratorBody. One way to read, so the relay loops (pipeline/run.ts), the whole-answer reads (providers/read-body.ts)
// and the features' file downloads need not know what feeds them.

import { IteratorBody } from './iterator-body.js';

/**
 * A body that hands its chunks over through a field rather than as a promise's value: arm() says whether take()
 * has something now, and otherwise calls `onArrival` once it has.
 */
export interface PulledBody {
  /** False when take() has something now (a chunk, the end, or the failure); else true, and `onArrival` is called once it has. */
  arm(onArrival: () => void): boolean;
  /** The chunk, or the end; throws the body's failure. */
  take(): IteratorResult<Uint8Array>;
  /** Stops reading: the rest of the body is not wanted. */
  return?(): Promise<unknown>;
  /**
   * The whole body when all of it has arrived and none was taken (a small answer usually comes with its headers),
   * the body then at its end; null otherwise. Bodies that cannot tell leave it out.
   */
  completed?(): Uint8Array | null;
}

/** A body of chunks as a producer hands it over: pulled already, or an async iterable (a generator) read as one. */
export type Chunks = PulledBody | AsyncIterable<Uint8Array>;

export function isPulledBody(body: object): body is PulledBody {
  const b = body as Partial<PulledBody>;
  return typeof b.arm === 'function' && typeof b.take === 'function';
}

/** `body` read as a PulledBody: itself when it is one (UpstreamBody), else its iterator through IteratorBody. */
export function pulledBody(body: Chunks): PulledBody {
  if (isPulledBody(body)) return body;
  return new IteratorBody(body[Symbol.asyncIterator]());
}

/**
 * `body` whose failure is thrown as `map` makes it (a feature's own error, a counted break), once: the wrapper a
 * reader of a file or a stream puts around the body, instead of a generator of its own.
 */
export function failingAs(body: PulledBody, map: (err: unknown) => unknown): PulledBody {
  // A body keeps throwing its failure at every take(): mapped once (a break counted once), the same error after.
  let mapped: { readonly error: unknown } | null = null;
  return {
    arm: (onArrival) => body.arm(onArrival),
    take: () => {
      try {
        return body.take();
      } catch (err) {
        mapped ??= { error: map(err) };
        throw mapped.error;
      }
    },
    return: () => body.return?.() ?? Promise.resolve(undefined),
  };
}

/** Resolves once take() has something (at once when it has now): for readers that may afford a promise per read. */
export function arrival(body: PulledBody): Promise<void> {
  return new Promise((resolve) => {
    if (!body.arm(resolve)) resolve();
  });
}

/** The next chunk or the end, as a promise (a reader that may afford one per read; the failure rejects it). */
export async function nextChunk(body: PulledBody): Promise<IteratorResult<Uint8Array>> {
  await arrival(body);
  return body.take();
}
