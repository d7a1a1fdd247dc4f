// The text of a JSON string's bytes when they are printable ASCII without escapes: keys, roles, types, model
// names. Every body repeats the same few dozen of them, and making a string from bytes is a call into Node
// (Buffer#toString, ~0.1 us) that the skeleton of an agent's body made a thousand times; a short one seen
// before is found again by a hash of its bytes, computed in the same loop that checks them.

// Not imported from json-scan.ts, which reads its keys through jsonStringText below.
const BACKSLASH = 0x5c;

/** Longer texts are rarely repeated (and a miss costs the comparison): they are always made anew. */
const SHORT = 32;
const SLOTS = 1024;

/**
 * The short texts made so far, one per slot (the last one made for it) with its bytes. Compared as bytes: a
 * text used as a property key may have become a reference to its interned copy, slower to read than a typed
 * array. A slot's text is only returned after a byte-for-byte match. One cache per server (formats/scan-memory.ts).
 */
export class AsciiTexts {
  readonly #texts: string[] = new Array<string>(SLOTS).fill('');
  readonly #lengths = new Int32Array(SLOTS).fill(-1);
  readonly #bytes = new Uint8Array(SLOTS * SHORT);

  /**
   * The text of raw[start, end) read as Latin-1, when every byte is printable ASCII and none is a backslash;
   * otherwise null (the caller decodes it as JSON).
   */
  text(raw: Buffer, start: number, end: number): string | null {
    let hash = 0;
    for (let i = start; i < end; i++) {
      const byte = raw[i] as number;
      if (byte < 0x20 || byte > 0x7e || byte === BACKSLASH) return null;
      hash = (Math.imul(hash, 31) + byte) | 0;
    }
    const length = end - start;
    if (length > SHORT) return raw.toString('latin1', start, end);
    const slot = (hash ^ length) & (SLOTS - 1);
    const at = slot * SHORT;
    const bytes = this.#bytes;
    const lengths = this.#lengths;
    if (lengths[slot] === length && sameBytes(bytes, raw, start, length, at)) return this.#texts[slot] as string;
    const text = raw.toString('latin1', start, end);
    for (let k = 0; k < length; k++) bytes[at + k] = raw[start + k] as number;
    lengths[slot] = length;
    this.#texts[slot] = text;
    return text;
  }

  /** jsonStringText below, with its short texts found again in this cache. */
  jsonString(raw: Buffer, start: number, end: number): string {
    return this.text(raw, start + 1, end - 1) ?? (JSON.parse(raw.toString('utf8', start, end)) as string);
  }
}

function sameBytes(bytes: Uint8Array, raw: Buffer, start: number, length: number, at: number): boolean {
  for (let k = 0; k < length; k++) if (bytes[at + k] !== raw[start + k]) return false;
  return true;
}

/**
 * The value of the JSON string literal raw[start, end), quotes included: its Latin-1 text when it is printable
 * ASCII without a backslash, else JSON.parse's reading (escapes, non-ASCII; a bad one throws).
 */
export function jsonStringText(raw: Buffer, start: number, end: number): string {
  for (let i = start + 1; i < end - 1; i++) {
    const byte = raw[i] as number;
    if (byte < 0x20 || byte > 0x7e || byte === BACKSLASH) return JSON.parse(raw.toString('utf8', start, end)) as string;
  }
  return raw.toString('latin1', start + 1, end - 1);
}
