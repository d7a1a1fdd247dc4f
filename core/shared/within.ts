// A bound on how long a request waits for Redis: past it, the caller's failure policy applies.

/** Redis did not answer in time (as opposed to refusing at once, e.g. while disconnected). */
export class RedisTimeout extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisTimeout';
  }
}

/** `promise`, or a RedisTimeout after `ms`. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // Rejected after the poll phase that follows the timer: a reply already in the socket when the event loop was
    // stalled past `ms` is read first, and counts as answered (the stall was ours, not Redis's).
    const timer = setTimeout(() => setImmediate(() => reject(new RedisTimeout(ms))), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
