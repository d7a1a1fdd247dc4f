// A whole upstream body as one Buffer, through the one reading protocol (sse/pulled-body.ts): at once when all of it
// has arrived (a small JSON answer usually has by the time its headers are handed over: no promise, and the caller
// need not await), else taken chunk by chunk to its end. Bounded where a broken or hostile upstream could make it
// endless (a control plane's or a model list's JSON).

import { errors as undiciErrors } from 'undici';
import { arrival, pulledBody, type Chunks, type PulledBody } from '../sse/pulled-body.js';
import { UpstreamFailure } from './provider.js';

/** The body's bytes; with `max`, throws `tooLarge()` once more than `max` came (the rest is not read). Read failures are thrown as they are. */
export function readBody(body: Chunks, max = Number.POSITIVE_INFINITY, tooLarge?: () => Error): Buffer | Promise<Buffer> {
  const pulled = pulledBody(body);
  const whole = pulled.completed?.() ?? null;
  if (whole !== null) {
    if (whole.byteLength > max) throw tooLargeError(tooLarge, max);
    return asBuffer(whole);
  }
  return readToEnd(pulled, max, tooLarge);
}

/**
 * readBody for the relay: a body that breaks off while it is read is an UpstreamFailure (nothing of a whole answer
 * has reached the client, so the relay may try the next channel): `timeout` when the upstream went silent past its
 * idle timeout, else `protocol`. Only read failures are: whatever the caller does with the bytes afterwards fails as
 * itself.
 */
export function readWhole(body: Chunks, max: number = Number.POSITIVE_INFINITY): Buffer | Promise<Buffer> {
  // Past `max` the answer is as good as broken: the rest is not read (server.max_answer_bytes).
  const tooLarge = (): Error => new UpstreamFailure('protocol', `the answer is over ${max} bytes`);
  try {
    const read = readBody(body, max, tooLarge);
    return read instanceof Promise ? read.catch((err: unknown) => Promise.reject(asUpstreamFailure(err))) : read;
  } catch (err) {
    // Refused at once (a whole answer already here, and too large): as a failed read, not a throw from the call.
    return Promise.reject(asUpstreamFailure(err));
  }
}

async function readToEnd(body: PulledBody, max: number, tooLarge: (() => Error) | undefined): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for (;;) {
      await arrival(body);
      const next = body.take();
      if (next.done === true) break;
      size += next.value.byteLength;
      if (size > max) throw tooLargeError(tooLarge, max);
      parts.push(asBuffer(next.value));
    }
  } catch (err) {
    // As `for await` does when its body throws: the rest of the upstream is not wanted.
    void body.return?.();
    throw err;
  }
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}

function tooLargeError(tooLarge: (() => Error) | undefined, max: number): Error {
  return tooLarge?.() ?? new Error(`the body is over ${max} bytes`);
}

function asUpstreamFailure(err: unknown): UpstreamFailure {
  if (err instanceof UpstreamFailure) return err;
  if (err instanceof undiciErrors.BodyTimeoutError) return new UpstreamFailure('timeout', 'the upstream stopped sending its answer', { cause: err });
  return new UpstreamFailure('protocol', 'the answer broke off while it was read', { cause: err });
}

/** A view of the same bytes, no copy. */
function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
