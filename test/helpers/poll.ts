// Bounded waiting for the e2e tests: poll a probe until it yields a value, or race a promise against a deadline.

export interface PollOptions {
  /** Give up (throw) once this much time has passed. */
  readonly timeoutMs: number;
  /** The pause between two probes. */
  readonly intervalMs: number;
}

/**
 * Calls `probe` until it returns something other than undefined and resolves with that; throws
 * `timed out waiting for ${what}` once `timeoutMs` has passed. A probe that throws ends the wait at once.
 */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, options: PollOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, options.intervalMs));
  }
}

/** Fails (instead of hanging) when `promise` has not settled within `ms`. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting until ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
