// Edits one top-level field of a JSON object body in place, byte for byte: everything else stays exactly as
// the client sent it. Re-serializing a parsed body would round integers above 2^53, rewrite number spellings
// and escapes, and cost a JSON.stringify of a body that may be hundreds of KB.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function skipSpace(raw: Buffer, i: number): number {
  while (isSpace(raw[i])) i++;
  return i;
}

/** From an opening quote, the index just past the closing quote. */
function skipString(raw: Buffer, i: number): number {
  for (i++; i < raw.length; i++) {
    const byte = raw[i];
    if (byte === BACKSLASH) i++;
    else if (byte === QUOTE) return i + 1;
  }
  throw new Error('unterminated string');
}

/** From the first byte of any value, the index just past it (strings are skipped whole, so brackets inside them do not count). */
function skipValue(raw: Buffer, i: number): number {
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

interface Pair {
  readonly name: string;
  readonly keyStart: number;
  readonly valueStart: number;
  readonly valueEnd: number;
}

/** The top-level pairs of a JSON object, in order, and the index of its opening brace. */
function topLevelPairs(raw: Buffer): { pairs: Pair[]; open: number } {
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

/** Top-level fields in `keys` removed with their separators; every other byte stays. Unchanged input when none is there. */
export function removeTopLevelFields(raw: Buffer, keys: ReadonlySet<string>): Buffer {
  const { pairs } = topLevelPairs(raw);
  const lastKept = pairs.findLastIndex((pair) => !keys.has(pair.name));
  const cuts: [number, number][] = [];
  pairs.forEach((pair, i) => {
    const next = pairs[i + 1];
    // Before the last kept pair: the pair and the separator after it.
    if (keys.has(pair.name) && i < lastKept && next !== undefined) cuts.push([pair.keyStart, next.keyStart]);
  });
  const last = pairs[pairs.length - 1];
  if (last !== undefined && lastKept < pairs.length - 1) {
    // Removed pairs at the end: from the end of the last kept value (its comma included), or all of them.
    const kept = pairs[lastKept];
    cuts.push([kept === undefined ? (pairs[0] as Pair).keyStart : kept.valueEnd, last.valueEnd]);
  }
  if (cuts.length === 0) return raw;
  const parts: Buffer[] = [];
  let at = 0;
  for (const [start, end] of cuts) {
    if (start > at) parts.push(raw.subarray(at, start));
    at = Math.max(at, end);
  }
  parts.push(raw.subarray(at));
  return Buffer.concat(parts);
}

/**
 * Returns `raw` with top-level `key` set to `value`: its value bytes replaced where the key exists, else the
 * pair inserted first. `raw` must be a JSON object the caller already parsed (so it is valid JSON).
 */
export function setTopLevelField(raw: Buffer, key: string, value: unknown): Buffer {
  const encoded = Buffer.from(JSON.stringify(value), 'utf8');
  const { pairs, open } = topLevelPairs(raw);
  // The last of duplicate keys is the one JSON.parse keeps.
  const span = pairs.findLast((pair) => pair.name === key);
  if (span !== undefined) return Buffer.concat([raw.subarray(0, span.valueStart), encoded, raw.subarray(span.valueEnd)]);
  const empty = raw[skipSpace(raw, open + 1)] === CLOSE_BRACE;
  const pair = Buffer.from(`${JSON.stringify(key)}:${encoded.toString('utf8')}${empty ? '' : ','}`, 'utf8');
  return Buffer.concat([raw.subarray(0, open + 1), pair, raw.subarray(open + 1)]);
}
