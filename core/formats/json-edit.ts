// Edits one top-level field of a JSON object body in place, byte for byte: everything else stays exactly as
// the client sent it. Re-serializing a parsed body would round integers above 2^53, rewrite number spellings
// and escapes, and cost a JSON.stringify of a body that may be hundreds of KB.
//
// Each edit is computed as pieces (views of the input and the new bytes); the Buffer functions join them,
// the BodyBytes ones make a body of them that a large one's memory rules apply to (body-bytes.ts).

import type { BodyBytes } from './body-bytes.js';
import { CLOSE_BRACE, skipSpace, topLevelPairs, type Pair, type TopLevel } from './json-scan.js';

/** Top-level fields in `keys` removed with their separators; every other byte stays. Unchanged input when none is there. */
export function removeTopLevelFields(raw: Buffer, keys: ReadonlySet<string>): Buffer {
  const pieces = removalPieces(raw, topLevelPairs(raw), keys);
  return pieces === null ? raw : Buffer.concat(pieces);
}

/** removeTopLevelFields for a request body: `body` itself when none of `keys` is there. */
export function removeBodyFields(body: BodyBytes, keys: ReadonlySet<string>): BodyBytes {
  const raw = body.joined();
  const pieces = removalPieces(raw, layoutOf(body, raw), keys);
  return pieces === null ? body : body.derive(pieces);
}

/**
 * Returns `raw` with top-level `key` set to `value`: its value bytes replaced where the key exists, else the
 * pair inserted first. `raw` must be a JSON object the caller already parsed (so it is valid JSON).
 */
export function setTopLevelField(raw: Buffer, key: string, value: unknown): Buffer {
  return Buffer.concat(settingPieces(raw, topLevelPairs(raw), key, value));
}

/** setTopLevelField for a request body. */
export function setBodyField(body: BodyBytes, key: string, value: unknown): BodyBytes {
  const raw = body.joined();
  return body.derive(settingPieces(raw, layoutOf(body, raw), key, value));
}

/** The body's top-level pairs: where its parse left them, else walked now. */
function layoutOf(body: BodyBytes, raw: Buffer): TopLevel {
  return body.topLevel ?? topLevelPairs(raw);
}

function removalPieces(raw: Buffer, { pairs }: TopLevel, keys: ReadonlySet<string>): Buffer[] | null {
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
  if (cuts.length === 0) return null;
  const parts: Buffer[] = [];
  let at = 0;
  for (const [start, end] of cuts) {
    if (start > at) parts.push(raw.subarray(at, start));
    at = Math.max(at, end);
  }
  parts.push(raw.subarray(at));
  return parts;
}

function settingPieces(raw: Buffer, { pairs, open }: TopLevel, key: string, value: unknown): Buffer[] {
  const encoded = Buffer.from(JSON.stringify(value), 'utf8');
  // The last of duplicate keys is the one JSON.parse keeps.
  const span = pairs.findLast((pair) => pair.name === key);
  if (span !== undefined) return [raw.subarray(0, span.valueStart), encoded, raw.subarray(span.valueEnd)];
  const empty = raw[skipSpace(raw, open + 1)] === CLOSE_BRACE;
  const pair = Buffer.from(`${JSON.stringify(key)}:${encoded.toString('utf8')}${empty ? '' : ','}`, 'utf8');
  return [raw.subarray(0, open + 1), pair, raw.subarray(open + 1)];
}
