// Typed context slots: what one step of a chain hands a later one (a session to a handler), by a key that carries
// the value's type, instead of a field of core's context or an untyped bag (as Hono's c.set/c.get).

/** A slot's key: its name (for messages) and, at the type level only, what it holds. */
export interface Slot<T> {
  readonly name: string;
  /** Never set: it only carries T. */
  readonly holds?: T;
}

/** A new slot key; each call is a distinct slot, whatever its name. */
export function slot<T>(name: string): Slot<T> {
  return Object.freeze({ name });
}

/** A request's slots, made on the first value put in. */
export class SlotValues {
  readonly #values = new Map<Slot<unknown>, unknown>();

  get<T>(key: Slot<T>): T | undefined {
    return this.#values.get(key) as T | undefined;
  }

  set<T>(key: Slot<T>, value: T): void {
    this.#values.set(key, value);
  }
}
