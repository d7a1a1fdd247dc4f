// Google's JSON parser is lenient and its own REST samples rely on it: snake_case keys (`function_declarations`) as
// well as camelCase, and a single object where a list is expected (`"parts": {...}`). A Gemini client's body is read
// through these, so every form Google accepts is accepted here too.

import type { JsonObject } from '../../core/formats/field-reader.js';
import { geminiFields as read } from './request-fields.js';

function snakeCase(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `obj[camel]`, or its snake_case spelling when the camelCase one is absent. */
export function member(obj: JsonObject, camel: string): unknown {
  const value = obj[camel];
  return value === undefined ? obj[snakeCase(camel)] : value;
}

/** A repeated field: a list, one object standing for a list of one, or nothing (absent or null). */
export function listOf(value: unknown, param: string): readonly unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  if (typeof value === 'object') return [value];
  throw read.refuse(value, param, ['array']);
}
