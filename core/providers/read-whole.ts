// A whole upstream body as one Buffer: at once when it has all arrived, else read to its end.

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

async function readToEnd(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(asBuffer(chunk));
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}

/** A view of the same bytes, no copy. */
function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
