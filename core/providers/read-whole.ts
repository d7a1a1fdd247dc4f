// A whole upstream body as one Buffer: at once when it has all arrived, else read to its end.

import { errors as undiciErrors } from 'undici';
import { UpstreamFailure } from './provider.js';
import { UpstreamBody } from './upstream-body.js';

/**
 * Synchronous for an UpstreamBody already complete (a small JSON answer usually is by the time its headers are
 * handed over): no async iteration, no promise per chunk, and the caller need not await.
 */
export function readWhole(body: AsyncIterable<Uint8Array>): Buffer | Promise<Buffer> {
  if (body instanceof UpstreamBody) {
    const whole = body.completed();
    if (whole !== null) return asBuffer(whole);
  }
  return readToEnd(body);
}

/**
 * A body that breaks off while it is read is an UpstreamFailure (nothing of a whole answer has reached the client,
 * so the relay may try the next channel): `timeout` when the upstream went silent past its idle timeout, else
 * `protocol`. Only read failures are: whatever the caller does with the bytes afterwards fails as itself.
 */
async function readToEnd(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  try {
    for await (const chunk of body) parts.push(asBuffer(chunk));
  } catch (err) {
    if (err instanceof undiciErrors.BodyTimeoutError) throw new UpstreamFailure('timeout', 'the upstream stopped sending its answer', { cause: err });
    throw new UpstreamFailure('protocol', 'the answer broke off while it was read', { cause: err });
  }
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}

/** A view of the same bytes, no copy. */
function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
