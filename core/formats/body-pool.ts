// Memory for large request bodies, reused from one request to the next (body-bytes.ts says why). Slabs come
// in power-of-two sizes; a released slab waits in its size's free list for the next body of that size. The
// lists together keep at most MAX_FREE_BYTES: over it, the largest free slabs are dropped (left to the GC)
// first, so a few huge bodies cannot crowd out the sizes most bodies have. Free slabs that no body has asked for
// in a while are dropped altogether (dropIdle), so the memory of a burst goes back to the system after it.
//
// One pool per server (the runtime's, shared by its listener's intake), an object rather than module state, so
// two gateways in one process (tests) each count their own slabs.

/** The smallest slab: body-bytes.ts pools bodies from this size on. */
export const MIN_SLAB = 64 * 1024;
const MAX_FREE_BYTES = 64 * 1024 * 1024;

/** Set on a slab's memory, so a Buffer can be told to view one (a view must never be handed to a socket). */
const SLAB = Symbol('slab');

type MaybeSlab = ArrayBufferLike & { [SLAB]?: true };

/** Whether `bytes` lies in a slab's memory (of any pool). */
export function inSlab(bytes: Uint8Array): boolean {
  return (bytes.buffer as MaybeSlab)[SLAB] === true;
}

export class BodyPool {
  readonly #free = new Map<number, Buffer[]>();
  #freeBytes = 0;
  #inUse = 0;
  /** When a slab was last taken (ms since the epoch). */
  #lastTakenAt = 0;

  /** A slab of at least `size` bytes (its content is whatever the last body left: write before reading). */
  take(size: number): Buffer {
    let slabSize = MIN_SLAB;
    while (slabSize < size) slabSize *= 2;
    this.#inUse++;
    this.#lastTakenAt = Date.now();
    const slab = this.#free.get(slabSize)?.pop();
    if (slab !== undefined) {
      this.#freeBytes -= slab.length;
      return slab;
    }
    const made = Buffer.allocUnsafeSlow(slabSize);
    (made.buffer as MaybeSlab)[SLAB] = true;
    return made;
  }

  /** Gives `slab` back for another body; nothing may read or write it afterwards. */
  give(slab: Buffer): void {
    this.#inUse--;
    let list = this.#free.get(slab.length);
    if (list === undefined) {
      list = [];
      this.#free.set(slab.length, list);
    }
    list.push(slab);
    this.#freeBytes += slab.length;
    while (this.#freeBytes > MAX_FREE_BYTES) {
      const largest = Math.max(...[...this.#free].filter(([, slabs]) => slabs.length > 0).map(([size]) => size));
      (this.#free.get(largest) as Buffer[]).pop();
      this.#freeBytes -= largest;
    }
  }

  /**
   * Drops every free slab when none was taken for `idleMs`: a burst of large bodies leaves up to MAX_FREE_BYTES
   * behind, worth keeping while such bodies keep coming, not for hours after. Returns the bytes dropped.
   */
  dropIdle(now: number, idleMs: number): number {
    if (this.#freeBytes === 0 || now - this.#lastTakenAt < idleMs) return 0;
    const dropped = this.#freeBytes;
    this.#free.clear();
    this.#freeBytes = 0;
    return dropped;
  }

  /** Bytes waiting in the free lists, and slabs taken and not given back (for tests). */
  get state(): { readonly freeBytes: number; readonly inUse: number } {
    return { freeBytes: this.#freeBytes, inUse: this.#inUse };
  }
}
