// Safe reads from parsed JSON of unknown shape (usage objects, events): a missing or wrong-typed field is absent.

export function field(obj: unknown, key: string): unknown {
  return typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>)[key] : undefined;
}

/**
 * A count (tokens, an index, a timestamp): a non-negative safe integer, else `fallback` (absent, null,
 * non-numbers, negatives and fractions alike). An upstream's `-1` must not reach a usage record or a counter.
 */
export function count(value: unknown, fallback = 0): number {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : fallback;
}
