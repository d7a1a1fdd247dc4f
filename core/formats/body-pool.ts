// Memory for large request bodies, reused from one request to the next (body-bytes.ts says why). Slabs come
// in power-of-two sizes; a released slab waits in its size's free list for the next body of that size, and
// the lists together keep at most MAX_FREE_BYTES (beyond that a released slab is left to the GC).

const MIN_SLAB = 64 * 1024;
const MAX_FREE_BYTES = 64 * 1024 * 1024;

const free = new Map<number, Buffer[]>();
let freeBytes = 0;

/** A slab of at least `size` bytes (its content is whatever the last body left: write before reading). */
export function takeSlab(size: number): Buffer {
  let slabSize = MIN_SLAB;
  while (slabSize < size) slabSize *= 2;
  const slab = free.get(slabSize)?.pop();
  if (slab !== undefined) {
    freeBytes -= slab.length;
    return slab;
  }
  return Buffer.allocUnsafeSlow(slabSize);
}

/** Gives `slab` back for another body; nothing may read or write it afterwards. */
export function giveSlab(slab: Buffer): void {
  if (freeBytes + slab.length > MAX_FREE_BYTES) return;
  let list = free.get(slab.length);
  if (list === undefined) {
    list = [];
    free.set(slab.length, list);
  }
  list.push(slab);
  freeBytes += slab.length;
}

/** Bytes waiting in the free lists (for tests). */
export function pooledBytes(): number {
  return freeBytes;
}
