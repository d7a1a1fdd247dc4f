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

/** Parses the fields of one frame's text; unknown fields and comments are kept only in `raw`. */
export function readFields(text: string): { event: string | null; data: string | null } {
  let event: string | null = null;
  let data: string | null = null;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '' || line.charCodeAt(0) === 58 /* ':' comment */) continue;
    const m = FIELD.exec(line);
    if (m === null) continue;
    const name = m[1];
    let value = m[2] ?? '';
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (name === 'data') data = data === null ? value : `${data}\n${value}`;
    else if (name === 'event') event = value;
  }
  return { event, data };
}
