// Google's JSON parser is lenient and its own REST samples rely on it: snake_case keys (`function_declarations`) as
// well as camelCase, and a single object where a list is expected (`"parts": {...}`). A Gemini client's body is read
// through these, so every form Google accepts is accepted here too.

import type { JsonObject } from '../../core/formats/field-reader.js';

function snakeCase(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `obj[camel]`, or its snake_case spelling when the camelCase one is absent. */
export function member(obj: JsonObject, camel: string): unknown {
  const value = obj[camel];
  return value === undefined ? obj[snakeCase(camel)] : value;
}

/**
 * A repeated field: a list, one value standing for a list of one (Google's parser takes both), or nothing (absent or
 * null). The caller reads each element, refusing one of the wrong type by its place (`contents[0]`).
 */
export function listOf(value: unknown): readonly unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}
