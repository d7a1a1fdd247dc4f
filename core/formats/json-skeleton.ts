// A request body's structure and small values, decoded without decoding its bulk. A coding agent's body is
// hundreds of KB, nearly all of it long strings deep inside (message text, tool results, tool descriptions);
// decoding those into UTF-16 strings is most of what a full JSON.parse costs, and a pass-through request
// never reads them. What routing and the request schemas read (model, stream, metadata.user_id,
// prompt_cache_key, messages[i].role, ...) sits at most two containers below the body object.
//
// So: every object, array, number, literal and key is parsed and checked; strings are decoded exactly, except
// strings longer than LONG_STRING_BYTES nested at least DEEP levels down, which are skipped (their end found
// by json-string-end.ts) and stand as UNDECODED. Their content is not checked (a raw control character or a
// bad escape inside one reaches the upstream, which refuses it in the same API's words). Anything the parser
// refuses is handed to the real JSON.parse by the caller, so syntax errors are worded by V8 as before.

import type { AsciiTexts } from './ascii-text.js';
import type { BodyBytes } from './body-bytes.js';
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  skipSpace,
  type Pair,
  type TopLevel,
} from './json-scan.js';
import type { StringEnd } from './json-string-end.js';
import type { ScanMemory } from './scan-memory.js';

/** Stands in for a long string the skeleton did not decode. */
export const UNDECODED = '\u0000(undecoded)';

/** Depth of the values that may stay undecoded: 1 is a top-level field, 2 an element of one (a message). */
const DEEP = 3;
const LONG_STRING_BYTES = 256;

const T = 0x74;
const F = 0x66;
const N = 0x6e;

/** Parses `body` as JSON with deep long strings left undecoded; throws on anything it does not accept. */
export function parseSkeleton(body: BodyBytes, memory: ScanMemory): unknown {
  return readSkeleton(body, memory).value;
}

/** A string the skeleton left UNDECODED: where it stands in the value, and its literal's bytes (quotes included). */
export interface Undecoded {
  readonly holder: Record<string, unknown> | unknown[];
  readonly key: string | number;
  readonly start: number;
  readonly end: number;
}

export interface Skeleton {
  readonly value: unknown;
  /** Where the top-level pairs are when the document is an object (for edits, json-edit.ts). */
  readonly topLevel: TopLevel | null;
  /** Every UNDECODED string of `value`, for fillUndecoded. */
  readonly undecoded: readonly Undecoded[];
  /** The body holds a string equal to UNDECODED itself, which fillUndecoded could not tell from a skipped one. */
  readonly holdsStandIn: boolean;
}

export function readSkeleton(body: BodyBytes, memory: ScanMemory): Skeleton {
  const parser = new SkeletonParser(body, memory);
  const value = parser.document();
  return { value, topLevel: parser.topLevel, undecoded: parser.undecoded, holdsStandIn: parser.holdsStandIn };
}

/**
 * Turns a skeleton's value into the whole body's, in place: each UNDECODED string is decoded from `raw` (the
 * body's bytes, at the offsets the skeleton read). Cheaper than JSON.parse of the whole body, which decodes
 * all of it into one string first: V8 decodes a body holding any non-ASCII byte at ~3 us/KB into a two-byte
 * string, where the strings decoded one by one cost that only where they hold non-ASCII. Returns false,
 * changing nothing, when the result would not be JSON.parse's: a key repeated in an object after a skipped
 * value (the later value wins, and the fill would put the skipped one back) or a client string equal to the
 * stand-in; the caller then parses the whole body. Throws a SyntaxError for a bad string (a raw control
 * character, a bad escape), which the skeleton did not check.
 */
export function fillUndecoded(skeleton: Skeleton, raw: Buffer): boolean {
  if (skeleton.holdsStandIn) return false;
  for (const u of skeleton.undecoded) if ((u.holder as Record<string | number, unknown>)[u.key] !== UNDECODED) return false;
  // A key repeated with skipped values each time: filled in order, the last one stays, as in JSON.parse.
  for (const u of skeleton.undecoded) {
    const text: unknown = JSON.parse(raw.toString('utf8', u.start, u.end));
    (u.holder as Record<string | number, unknown>)[u.key] = text;
  }
  return true;
}

class SkeletonParser {
  readonly #raw: Buffer;
  readonly #stringEnd: StringEnd;
  readonly #texts: AsciiTexts;
  #pos = 0;
  topLevel: TopLevel | null = null;
  readonly undecoded: Undecoded[] = [];
  holdsStandIn = false;

  // The bytes read are the scan's (the WebAssembly memory's copy of the body's reads): the parse is synchronous
  // and every value it makes is a new string or number, so nothing points into that memory afterwards.
  constructor(body: BodyBytes, memory: ScanMemory) {
    const scan = memory.stringEnds.scan(body);
    this.#raw = scan.raw;
    this.#stringEnd = scan.stringEnd;
    this.#texts = memory.texts;
  }

  document(): unknown {
    this.#pos = skipSpace(this.#raw, 0);
    const value = this.#value(0);
    if (skipSpace(this.#raw, this.#pos) !== this.#raw.length) this.#fail('unexpected data after the value');
    return value;
  }

  #fail(what: string): never {
    throw new SyntaxError(`${what} at byte ${this.#pos}`);
  }

  #value(depth: number): unknown {
    switch (this.#raw[this.#pos]) {
      case QUOTE:
        return this.#string(depth);
      case OPEN_BRACE:
        return this.#object(depth);
      case OPEN_BRACKET:
        return this.#array(depth);
      case T:
        return this.#literal('true', true);
      case F:
        return this.#literal('false', false);
      case N:
        return this.#literal('null', null);
      default:
        return this.#number();
    }
  }

  #object(depth: number): Record<string, unknown> {
    const raw = this.#raw;
    const out: Record<string, unknown> = {};
    // The top level's pairs are recorded as json-scan's topLevelPairs would find them.
    const pairs: Pair[] | null = depth === 0 ? [] : null;
    if (pairs !== null) this.topLevel = { pairs, open: this.#pos };
    this.#pos = skipSpace(raw, this.#pos + 1);
    if (raw[this.#pos] === CLOSE_BRACE) {
      this.#pos++;
      return out;
    }
    for (;;) {
      if (raw[this.#pos] !== QUOTE) this.#fail('expected a key');
      const keyStart = this.#pos;
      const key = this.#string(0);
      this.#pos = skipSpace(raw, this.#pos);
      if (raw[this.#pos] !== COLON) this.#fail('expected a colon');
      this.#pos = skipSpace(raw, this.#pos + 1);
      const valueStart = this.#pos;
      const value = this.#value(depth + 1);
      pairs?.push({ name: key, keyStart, valueStart, valueEnd: this.#pos });
      if (value === UNDECODED) this.undecoded.push({ holder: out, key, start: valueStart, end: this.#pos });
      // JSON.parse makes "__proto__" an own property; an assignment would set the prototype instead.
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
      this.#pos = skipSpace(raw, this.#pos);
      const next = raw[this.#pos];
      if (next === COMMA) {
        this.#pos = skipSpace(raw, this.#pos + 1);
        continue;
      }
      if (next === CLOSE_BRACE) {
        this.#pos++;
        return out;
      }
      this.#fail('expected a comma or a closing brace');
    }
  }

  #array(depth: number): unknown[] {
    const raw = this.#raw;
    const out: unknown[] = [];
    this.#pos = skipSpace(raw, this.#pos + 1);
    if (raw[this.#pos] === CLOSE_BRACKET) {
      this.#pos++;
      return out;
    }
    for (;;) {
      const start = this.#pos;
      const value = this.#value(depth + 1);
      if (value === UNDECODED) this.undecoded.push({ holder: out, key: out.length, start, end: this.#pos });
      out.push(value);
      this.#pos = skipSpace(raw, this.#pos);
      const next = raw[this.#pos];
      if (next === COMMA) {
        this.#pos = skipSpace(raw, this.#pos + 1);
        continue;
      }
      if (next === CLOSE_BRACKET) {
        this.#pos++;
        return out;
      }
      this.#fail('expected a comma or a closing bracket');
    }
  }

  #string(depth: number): string {
    const raw = this.#raw;
    const start = this.#pos;
    let end: number;
    try {
      end = this.#stringEnd(start);
    } catch {
      this.#fail('unterminated string');
    }
    this.#pos = end;
    if (depth >= DEEP && end - start > LONG_STRING_BYTES) return UNDECODED;
    // Printable ASCII without escapes (keys, roles, model names) is its own text; anything else is decoded
    // and checked by JSON.parse.
    const text = this.#texts.jsonString(raw, start, end);
    if (text === UNDECODED) this.holdsStandIn = true;
    return text;
  }

  #literal<V>(word: string, value: V): V {
    const raw = this.#raw;
    for (let k = 0; k < word.length; k++) if (raw[this.#pos + k] !== word.charCodeAt(k)) this.#fail('unexpected token');
    this.#pos += word.length;
    return value;
  }

  #number(): number {
    const raw = this.#raw;
    const start = this.#pos;
    let i = start;
    for (;;) {
      const byte = raw[i];
      // - + . 0-9 e E: JSON.parse below decides whether they make a number.
      if (byte === 0x2d || byte === 0x2b || byte === 0x2e || (byte !== undefined && byte >= 0x30 && byte <= 0x39) || byte === 0x65 || byte === 0x45) i++;
      else break;
    }
    if (i === start) this.#fail('unexpected token');
    this.#pos = i;
    const value: unknown = JSON.parse(raw.toString('latin1', start, i));
    if (typeof value !== 'number') this.#fail('not a number');
    return value;
  }
}
