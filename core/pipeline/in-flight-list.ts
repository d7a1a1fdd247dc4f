// The requests in flight, for shutdown: an array with swap-remove, not a Set.
//
// Why not a Set: with a Set here (an add and a delete per request), the gateway promoted every request's
// response, request and context to the old generation once it ran against a real upstream: ~870 KB per
// scavenge at 400 requests/s, against ~10 KB with this list (`--trace-gc-nvp`; bench/README.md, seventh
// session). V8 rebuilds a Set's hash table every few deletes and adds; our reading is that an obsolete table,
// once promoted, keeps its successor (and the entries it held) alive through the next scavenge, and so on.

/** One tracked request; `index` is its place in the list while it is there, -1 after. */
interface Slot<T> {
  readonly value: T;
  index: number;
}

export class InFlightList<T> {
  readonly #slots: Slot<T>[] = [];

  get size(): number {
    return this.#slots.length;
  }

  /** Adds `value`; the returned function removes it (once; later calls do nothing). */
  add(value: T): () => void {
    const slots = this.#slots;
    const slot: Slot<T> = { value, index: slots.length };
    slots.push(slot);
    return () => {
      if (slot.index < 0) return;
      const last = slots.pop() as Slot<T>;
      if (last !== slot) {
        slots[slot.index] = last;
        last.index = slot.index;
      }
      slot.index = -1;
    };
  }

  /** A copy: what is in flight now, safe to act on while entries leave. */
  values(): T[] {
    return this.#slots.map((slot) => slot.value);
  }
}
