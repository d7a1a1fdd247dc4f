// Byte-level walking of JSON bodies without decoding them: where a value ends, where the top-level pairs are.
// String content is jumped over with json-string-end.ts's indexOf walk (a call per quote) instead of being visited
// byte by byte in JavaScript; the WebAssembly scan is the skeleton's, whose memory is per server (scan-memory.ts).

import { jsonStringText } from './ascii-text.js';
import { indexOfStringEnds, type StringEnd } from './json-string-end.js';

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

export function skipSpace(raw: Buffer, i: number): number {
  while (isSpace(raw[i])) i++;
  return i;
}

/** From the first byte of any value, the index just past it (strings are skipped whole, so brackets inside them do not count). */
function skipValue(raw: Buffer, i: number, stringEnd: StringEnd): number {
  const first = raw[i];
  if (first === QUOTE) return stringEnd(i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (; i < raw.length; i++) {
      const byte = raw[i];
      if (byte === QUOTE) i = stringEnd(i) - 1;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    throw new Error('unterminated container');
  }
  // A number or a literal: up to the next delimiter.
  while (i < raw.length && raw[i] !== COMMA && raw[i] !== CLOSE_BRACE && raw[i] !== CLOSE_BRACKET && !isSpace(raw[i])) i++;
  return i;
}

export interface Pair {
  readonly name: string;
  readonly keyStart: number;
  readonly valueStart: number;
  readonly valueEnd: number;
}

/**
 * Walks the top-level pairs of a JSON object, calling `visit` with each key's and value's extent (the key
 * from its opening quote to just past its closing one); returns the index of the opening brace. Throws on
 * anything that is not one walkable object.
 */
function walkTopLevel(raw: Buffer, visit: (keyStart: number, keyEnd: number, valueStart: number, valueEnd: number) => void): number {
  const stringEnd = indexOfStringEnds(raw);
  let i = skipSpace(raw, 0);
  if (raw[i] !== OPEN_BRACE) throw new Error('not a JSON object');
  const open = i;
  i = skipSpace(raw, i + 1);
  if (raw[i] === CLOSE_BRACE) return open;
  for (;;) {
    if (raw[i] !== QUOTE) throw new Error('expected a key');
    const keyStart = i;
    const keyEnd = stringEnd(i);
    i = skipSpace(raw, keyEnd);
    if (raw[i] !== COLON) throw new Error('expected a colon');
    const valueStart = skipSpace(raw, i + 1);
    const valueEnd = skipValue(raw, valueStart, stringEnd);
    visit(keyStart, keyEnd, valueStart, valueEnd);
    i = skipSpace(raw, valueEnd);
    if (raw[i] === COMMA) {
      i = skipSpace(raw, i + 1);
      continue;
    }
    if (raw[i] === CLOSE_BRACE) return open;
    throw new Error('expected a comma or the end of the object');
  }
}

/** Where a JSON object's top-level pairs are, in order, and the index of its opening brace. */
export interface TopLevel {
  readonly pairs: readonly Pair[];
  readonly open: number;
}

/** The top-level pairs of a JSON object, in order, and the index of its opening brace. */
export function topLevelPairs(raw: Buffer): TopLevel {
  const pairs: Pair[] = [];
  const open = walkTopLevel(raw, (keyStart, keyEnd, valueStart, valueEnd) => {
    pairs.push({ name: jsonStringText(raw, keyStart, keyEnd), keyStart, valueStart, valueEnd });
  });
  return { pairs, open };
}

/**
 * The top-level value named `name`, parsed (the last one, as JSON.parse keeps the last of duplicate keys), or
 * undefined when there is none or the object cannot be walked; only that value is decoded. Keys are compared
 * as bytes: `name` is plain ASCII, and a key written with escapes is decoded before it is compared.
 */
export function topLevelJson(raw: Buffer, name: string): unknown {
  let found: Buffer | null = null;
  try {
    walkTopLevel(raw, (keyStart, keyEnd, valueStart, valueEnd) => {
      if (keyIs(raw, keyStart, keyEnd, name)) found = raw.subarray(valueStart, valueEnd);
    });
  } catch {
    return undefined;
  }
  return found === null ? undefined : (JSON.parse((found as Buffer).toString('utf8')) as unknown);
}

/**
 * How many elements the top-level array named `name` has (the last such key, as topLevelJson), counted without
 * decoding them (an image answer's `data` is megabytes of base64); undefined when there is none, it is not an
 * array, or the object cannot be walked.
 */
export function topLevelArrayLength(raw: Buffer, name: string): number | undefined {
  let start = -1;
  try {
    walkTopLevel(raw, (keyStart, keyEnd, valueStart) => {
      if (keyIs(raw, keyStart, keyEnd, name)) start = valueStart;
    });
  } catch {
    return undefined;
  }
  if (start === -1 || raw[start] !== OPEN_BRACKET) return undefined;
  const stringEnd = indexOfStringEnds(raw);
  let i = skipSpace(raw, start + 1);
  if (raw[i] === CLOSE_BRACKET) return 0;
  let count = 0;
  for (;;) {
    i = skipSpace(raw, skipValue(raw, i, stringEnd));
    count++;
    if (raw[i] === COMMA) i = skipSpace(raw, i + 1);
    else return count;
  }
}

/**
 * The bytes of the top-level value `name`, or of its first element when it is an array (Gemini's opening content),
 * without decoding them; undefined when there is none (or an empty array) or the object cannot be walked.
 */
export function topLevelFirstElement(raw: Buffer, name: string): Buffer | undefined {
  let start = -1;
  let end = -1;
  try {
    walkTopLevel(raw, (keyStart, keyEnd, valueStart, valueEnd) => {
      if (keyIs(raw, keyStart, keyEnd, name)) [start, end] = [valueStart, valueEnd];
    });
    if (start === -1) return undefined;
    if (raw[start] !== OPEN_BRACKET) return raw.subarray(start, end);
    const first = skipSpace(raw, start + 1);
    if (raw[first] === CLOSE_BRACKET) return undefined;
    return raw.subarray(first, skipValue(raw, first, indexOfStringEnds(raw)));
  } catch {
    return undefined;
  }
}

function keyIs(raw: Buffer, start: number, end: number, name: string): boolean {
  for (let k = start + 1; k < end - 1; k++) {
    if (raw[k] === BACKSLASH) return JSON.parse(raw.toString('utf8', start, end)) === name;
  }
  if (end - start - 2 !== name.length) return false;
  for (let k = 0; k < name.length; k++) if (raw[start + 1 + k] !== name.charCodeAt(k)) return false;
  return true;
}
