// How the relay reads any upstream body, streams and files alike: arm a callback, then take what arrived from a
// field. UpstreamBody (the HTTP client's) is read as it is; any other body of chunks (the mock's, a plugin's
// wrapper, a test's) through IteratorBody. One way to read, so the relay loops (pipeline/run.ts) need not know
// what feeds them.

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
}

function isPulledBody(body: object): body is PulledBody {
  const b = body as Partial<PulledBody>;
  return typeof b.arm === 'function' && typeof b.take === 'function';
}

/** `body` read as a PulledBody: itself when it is one (UpstreamBody), else its iterator through IteratorBody. */
export function pulledBody(body: AsyncIterable<Uint8Array>): PulledBody {
  const chunks = body[Symbol.asyncIterator]();
  return isPulledBody(chunks) ? chunks : new IteratorBody(chunks);
}

/** Resolves once take() has something (at once when it has now): for readers that may afford a promise per read. */
export function arrival(body: PulledBody): Promise<void> {
  return new Promise((resolve) => {
    if (!body.arm(resolve)) resolve();
  });
}
