// Bounded waiting for the e2e tests: poll a probe until it yields a value, or race a promise against a deadline.

import assert from 'node:assert/strict';

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

/** The reader side of a web stream (global fetch's and undici's alike). */
export interface ByteReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(): Promise<void>;
}

/** Reads a response body until its text contains `marker` (failing if it ends first); returns what was read. */
export async function readUntil(reader: ByteReader, marker: string, ms: number, what: string): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  await withDeadline(
    (async () => {
      while (!text.includes(marker)) {
        const { done, value } = await reader.read();
        assert.equal(done, false, `the stream ended before ${what}`);
        text += decoder.decode(value, { stream: true });
      }
    })(),
    ms,
    what,
  );
  return text;
}
