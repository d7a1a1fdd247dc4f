// Memory for large request bodies, reused from one request to the next (body-bytes.ts says why). Slabs come
// in power-of-two sizes; a released slab waits in its size's free list for the next body of that size. The
// lists together keep at most MAX_FREE_BYTES: over it, the largest free slabs are dropped (left to the GC)
// first, so a few huge bodies cannot crowd out the sizes most bodies have. Free slabs that no body has asked for
// in a while are dropped altogether (dropIdleSlabs), so the memory of a burst goes back to the system after it.

/** The smallest slab: body-bytes.ts pools bodies from this size on. */
export const MIN_SLAB = 64 * 1024;
const MAX_FREE_BYTES = 64 * 1024 * 1024;

const free = new Map<number, Buffer[]>();
let freeBytes = 0;
let inUse = 0;
/** When a slab was last taken (ms since the epoch). */
let lastTakenAt = 0;
/** Every slab's memory, so a Buffer can be told to view one (a view must never be handed to a socket). */
const slabMemory = new WeakSet<ArrayBufferLike>();

/** A slab of at least `size` bytes (its content is whatever the last body left: write before reading). */
export function takeSlab(size: number): Buffer {
  let slabSize = MIN_SLAB;
  while (slabSize < size) slabSize *= 2;
  inUse++;
  lastTakenAt = Date.now();
  const slab = free.get(slabSize)?.pop();
  if (slab !== undefined) {
    freeBytes -= slab.length;
    return slab;
  }
  const made = Buffer.allocUnsafeSlow(slabSize);
  slabMemory.add(made.buffer);
  return made;
}

/** Gives `slab` back for another body; nothing may read or write it afterwards. */
export function giveSlab(slab: Buffer): void {
  inUse--;
  let list = free.get(slab.length);
  if (list === undefined) {
    list = [];
    free.set(slab.length, list);
  }
  list.push(slab);
  freeBytes += slab.length;
  while (freeBytes > MAX_FREE_BYTES) {
    const largest = Math.max(...[...free].filter(([, slabs]) => slabs.length > 0).map(([size]) => size));
    (free.get(largest) as Buffer[]).pop();
    freeBytes -= largest;
  }
}

/**
 * Drops every free slab when none was taken for `idleMs`: a burst of large bodies leaves up to MAX_FREE_BYTES
 * behind, worth keeping while such bodies keep coming, not for hours after. Returns the bytes dropped.
 */
export function dropIdleSlabs(now: number, idleMs: number): number {
  if (freeBytes === 0 || now - lastTakenAt < idleMs) return 0;
  const dropped = freeBytes;
  free.clear();
  freeBytes = 0;
  return dropped;
}

/** Whether `bytes` lies in a slab's memory. */
export function inSlab(bytes: Uint8Array): boolean {
  return slabMemory.has(bytes.buffer);
}

/** Bytes waiting in the free lists, and slabs taken and not given back (for tests). */
export function poolState(): { readonly freeBytes: number; readonly inUse: number } {
  return { freeBytes, inUse };
}
