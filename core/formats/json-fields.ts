// Safe reads from parsed JSON of unknown shape (usage objects, events): a missing or wrong-typed field is absent.

export function field(obj: unknown, key: string): unknown {
  return typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>)[key] : undefined;
}

/** A finite number, else `fallback` (absent, null and non-numbers alike). */
export function count(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
