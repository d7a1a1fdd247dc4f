// Byte-level walking of JSON bodies without decoding them: where a value ends, where the top-level pairs are.
// A coding agent's body is hundreds of KB of string content around a little structure, so string content is
// jumped over with Buffer#indexOf (memchr) instead of being visited byte by byte.

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

export function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

export function skipSpace(raw: Buffer, i: number): number {
  while (isSpace(raw[i])) i++;
  return i;
}

/** From an opening quote, the index just past the closing quote. */
export function skipString(raw: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const quote = raw.indexOf(QUOTE, from);
    if (quote === -1) throw new Error('unterminated string');
    // Escaped when an odd number of backslashes precede it (`\\"` ends the string, `\"` does not).
    let b = quote - 1;
    while (b > i && raw[b] === BACKSLASH) b--;
    if ((quote - 1 - b) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** From the first byte of any value, the index just past it (strings are skipped whole, so brackets inside them do not count). */
export function skipValue(raw: Buffer, i: number): number {
  const first = raw[i];
  if (first === QUOTE) return skipString(raw, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (; i < raw.length; i++) {
      const byte = raw[i];
      if (byte === QUOTE) i = skipString(raw, i) - 1;
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

/** The top-level pairs of a JSON object, in order, and the index of its opening brace. */
export function topLevelPairs(raw: Buffer): { pairs: Pair[]; open: number } {
  let i = skipSpace(raw, 0);
  if (raw[i] !== OPEN_BRACE) throw new Error('not a JSON object');
  const open = i;
  const pairs: Pair[] = [];
  i = skipSpace(raw, i + 1);
  if (raw[i] === CLOSE_BRACE) return { pairs, open };
  for (;;) {
    if (raw[i] !== QUOTE) throw new Error('expected a key');
    const keyStart = i;
    const keyEnd = skipString(raw, i);
    const name = JSON.parse(raw.toString('utf8', i, keyEnd)) as string;
    i = skipSpace(raw, keyEnd);
    if (raw[i] !== COLON) throw new Error('expected a colon');
    const valueStart = skipSpace(raw, i + 1);
    const valueEnd = skipValue(raw, valueStart);
    pairs.push({ name, keyStart, valueStart, valueEnd });
    i = skipSpace(raw, valueEnd);
    if (raw[i] === COMMA) {
      i = skipSpace(raw, i + 1);
      continue;
    }
    if (raw[i] === CLOSE_BRACE) return { pairs, open };
    throw new Error('expected a comma or the end of the object');
  }
}

/**
 * The bytes of the top-level value named `name` (the last one, as JSON.parse keeps the last of duplicate
 * keys), or null when there is none or the object cannot be walked. Keys are compared as bytes: `name` is
 * plain ASCII, and a key written with escapes is decoded before it is compared.
 */
export function topLevelValue(raw: Buffer, name: string): Buffer | null {
  let found: Buffer | null = null;
  try {
    let i = skipSpace(raw, 0);
    if (raw[i] !== OPEN_BRACE) return null;
    i = skipSpace(raw, i + 1);
    if (raw[i] === CLOSE_BRACE) return null;
    for (;;) {
      if (raw[i] !== QUOTE) return null;
      const keyEnd = skipString(raw, i);
      const matches = keyIs(raw, i, keyEnd, name);
      i = skipSpace(raw, keyEnd);
      if (raw[i] !== COLON) return null;
      const valueStart = skipSpace(raw, i + 1);
      const valueEnd = skipValue(raw, valueStart);
      if (matches) found = raw.subarray(valueStart, valueEnd);
      i = skipSpace(raw, valueEnd);
      if (raw[i] === COMMA) {
        i = skipSpace(raw, i + 1);
        continue;
      }
      return raw[i] === CLOSE_BRACE ? found : null;
    }
  } catch {
    return null;
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
