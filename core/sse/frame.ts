// One server-sent event as it crossed the wire: its exact bytes, plus the fields a plugin may read.

/** A parsed SSE event. `raw` holds the exact bytes, terminating blank line included, so pass-through is byte-exact. */
export interface SseFrame {
  readonly raw: Uint8Array;
  /** The `event:` field, or null when absent. */
  readonly event: string | null;
  /** The `data:` lines joined with "\n", or null for a frame without data (a comment or keepalive). */
  readonly data: string | null;
}

// `s`: without it `.` stops at U+2028/U+2029, which JSON may carry raw, and the whole data line would be lost.
const FIELD = /^([^:]*)(?::(.*))?$/s;

const COLON = 58;
const SPACE = 32;

/**
 * Parses the fields of one frame's text; unknown fields and comments are kept only in `raw`. Every frame of
 * every stream comes through here, nearly all of them LF-only: those are read with indexOf and slices (a split
 * and a regex per line cost about a microsecond per frame); text holding a CR goes the general way.
 */
export function readFields(text: string): { event: string | null; data: string | null } {
  if (text.indexOf('\r') !== -1) return readFieldsAnyEnding(text);
  let event: string | null = null;
  let data: string | null = null;
  const n = text.length;
  let pos = 0;
  // The next colon at or after pos, found once and reused while lines without one go by (searching again per
  // line would read to the next colon for every such line: quadratic).
  let nextColon = -2;
  while (pos < n) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = n;
    if (end > pos && text.charCodeAt(pos) !== COLON) {
      if (nextColon !== -1 && nextColon < pos) nextColon = text.indexOf(':', pos);
      const colon = nextColon === -1 || nextColon > end ? end : nextColon;
      let from = colon < end ? colon + 1 : end;
      if (from < end && text.charCodeAt(from) === SPACE) from++;
      const nameLength = colon - pos;
      if (nameLength === 4 && text.startsWith('data', pos)) {
        const value = text.slice(from, end);
        data = data === null ? value : `${data}\n${value}`;
      } else if (nameLength === 5 && text.startsWith('event', pos)) {
        event = text.slice(from, end);
      }
    }
    pos = end + 1;
  }
  return { event, data };
}

/** The same for text with CR or CRLF line endings. */
function readFieldsAnyEnding(text: string): { event: string | null; data: string | null } {
  let event: string | null = null;
  let data: string | null = null;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '' || line.charCodeAt(0) === COLON) continue;
    const m = FIELD.exec(line);
    if (m === null) continue;
    const name = m[1];
    let value = m[2] ?? '';
    if (value.charCodeAt(0) === SPACE) value = value.slice(1);
    if (name === 'data') data = data === null ? value : `${data}\n${value}`;
    else if (name === 'event') event = value;
  }
  return { event, data };
}
