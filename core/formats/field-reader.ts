// Reading a client's request body of unknown shape (translation decodes it whole, the mock channel answers it):
// each read narrows one value or throws the route's 400 naming where the value is, worded by the format as its
// real API words it. The shallow schema checks only the first levels; below them, every read goes through here.

import type { GatewayError } from '../errors.js';

export type JsonObject = Record<string, unknown>;

/** The types a request field may be expected to have, as the APIs name them in their errors. */
export type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

/** How one API words a refused field; `param` is already in its notation (`messages[0].role`, `messages.0.role`). */
export interface FieldWording {
  missing(param: string): GatewayError;
  wrongType(param: string, expected: readonly JsonType[], got: JsonType): GatewayError;
  invalid(param: string, detail: string): GatewayError;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The type of a parsed JSON value (`undefined`, which JSON cannot hold, counts as null). */
export function jsonTypeOf(value: unknown): JsonType {
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'object':
      return value === null ? 'null' : 'object';
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'null';
  }
}

/** Longer values are cut in messages: a client's 500 KB string has no place in an error. */
const SHOWN_MAX = 64;

/**
 * A client's value inside a message: a string as it is, anything else as JSON, cut at SHOWN_MAX. Never
 * `String(value)` or a template of it: those throw for an object whose `toString` is not a function (`{"toString":1}`).
 */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX)}...` : text;
}

const OBJECT: readonly JsonType[] = ['object'];
const ARRAY: readonly JsonType[] = ['array'];
const STRING: readonly JsonType[] = ['string'];
const NUMBER: readonly JsonType[] = ['number'];
const BOOLEAN: readonly JsonType[] = ['boolean'];

/**
 * Typed reads of one format's request fields. Required reads refuse an absent value as missing; optional reads
 * take null as absent (the SDKs send explicit nulls) and refuse only a value of another type.
 */
export class FieldReader {
  constructor(private readonly wording: FieldWording) {}

  missing(param: string): GatewayError {
    return this.wording.missing(param);
  }

  invalid(param: string, detail: string): GatewayError {
    return this.wording.invalid(param, detail);
  }

  /** The refusal of `value` at `param` where one of `expected` was required: missing when absent. */
  refuse(value: unknown, param: string, expected: readonly JsonType[]): GatewayError {
    return value === undefined ? this.wording.missing(param) : this.wording.wrongType(param, expected, jsonTypeOf(value));
  }

  object(value: unknown, param: string): JsonObject {
    if (isObject(value)) return value;
    throw this.refuse(value, param, OBJECT);
  }

  array(value: unknown, param: string): readonly unknown[] {
    if (Array.isArray(value)) return value;
    throw this.refuse(value, param, ARRAY);
  }

  string(value: unknown, param: string): string {
    if (typeof value === 'string') return value;
    throw this.refuse(value, param, STRING);
  }

  /** A finite number (JSON.parse makes 1e999 Infinity). */
  number(value: unknown, param: string): number {
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    throw this.refuse(value, param, NUMBER);
  }

  optionalObject(value: unknown, param: string): JsonObject | null {
    return value === undefined || value === null ? null : this.object(value, param);
  }

  optionalArray(value: unknown, param: string): readonly unknown[] | null {
    return value === undefined || value === null ? null : this.array(value, param);
  }

  optionalString(value: unknown, param: string): string | null {
    return value === undefined || value === null ? null : this.string(value, param);
  }

  optionalNumber(value: unknown, param: string): number | null {
    return value === undefined || value === null ? null : this.number(value, param);
  }

  optionalBoolean(value: unknown, param: string): boolean | null {
    if (value === undefined || value === null) return null;
    if (typeof value === 'boolean') return value;
    throw this.wording.wrongType(param, BOOLEAN, jsonTypeOf(value));
  }
}
