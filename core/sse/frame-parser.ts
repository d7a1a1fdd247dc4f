// The only SSE parser: splits a byte stream into whole frames, whatever the chunking, keeping the exact bytes.

import { readFields, type SseFrame } from './frame.js';

const LF = 10;
const CR = 13;
const EMPTY = Buffer.alloc(0);

/**
 * Incremental parser. Feed chunks in arrival order; frames come out only when their blank line has arrived,
 * so a frame split anywhere (inside a CRLF, inside a multibyte character) is reassembled first.
 */
export class SseFrameParser {
  private buf: Buffer = EMPTY;
  /** Scan position inside `buf` of the first byte not yet classified. */
  private pos = 0;
  /** Bytes of the current line seen so far (0 means we are at the start of a line). */
  private lineLen = 0;
  /** The previous byte was a CR whose LF (if any) has not arrived yet. */
  private pendingCR = false;

  push(chunk: Uint8Array): SseFrame[] {
    if (chunk.length === 0) return [];
    const incoming = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    this.buf = this.buf.length === 0 ? incoming : Buffer.concat([this.buf, incoming]);
    const frames: SseFrame[] = [];
    let start = 0;
    const buf = this.buf;
    if (!this.pendingCR && incoming.indexOf(CR) === -1) {
      // LF-only bytes (nearly every stream): jump from line end to line end with indexOf, not byte by byte.
      let i = this.pos;
      for (let lf = buf.indexOf(LF, i); lf !== -1; lf = buf.indexOf(LF, i)) {
        if (this.lineLen === 0 && lf === i) {
          frames.push(makeFrame(buf.subarray(start, lf + 1)));
          start = lf + 1;
        }
        this.lineLen = 0;
        i = lf + 1;
      }
      this.lineLen += buf.length - i;
      this.buf = unfinished(buf, start);
      this.pos = this.buf.length;
      return frames;
    }
    for (let i = this.pos; i < buf.length; i++) {
      const b = buf[i];
      if (this.pendingCR) {
        this.pendingCR = false;
        if (b === LF) {
          // The LF of a CRLF whose CR already ended a line; if that line was blank the frame ends here.
          if (this.lineLen === -1) {
            frames.push(makeFrame(buf.subarray(start, i + 1)));
            start = i + 1;
            this.lineLen = 0;
          }
          continue;
        }
        if (this.lineLen === -1) {
          // A lone CR ended the blank line: the frame ended just before this byte.
          frames.push(makeFrame(buf.subarray(start, i)));
          start = i;
          this.lineLen = 0;
        }
      }
      if (b === LF || b === CR) {
        const blank = this.lineLen === 0;
        if (b === CR) {
          this.pendingCR = true;
          this.lineLen = blank ? -1 : 0;
          continue;
        }
        if (blank) {
          frames.push(makeFrame(buf.subarray(start, i + 1)));
          start = i + 1;
        }
        this.lineLen = 0;
      } else {
        this.lineLen = this.lineLen === -1 ? 1 : this.lineLen + 1;
      }
    }
    this.buf = unfinished(buf, start);
    this.pos = this.buf.length;
    return frames;
  }

  /** At end of stream: whatever is left (a frame without its blank line) as one last frame, if any. */
  end(): SseFrame[] {
    const rest = this.buf;
    this.buf = EMPTY;
    this.pos = 0;
    this.lineLen = 0;
    this.pendingCR = false;
    if (rest.length === 0) return [];
    return [makeFrame(rest)];
  }
}

/**
 * What is kept of `buf` for the next push: the unfinished frame from `start`. Not an empty view when nothing is
 * left: that would hold the whole read (its memory and Buffer) until the next one, which on a paced stream is
 * long enough for V8 to move it to the old generation.
 */
function unfinished(buf: Buffer, start: number): Buffer {
  return start === 0 ? buf : start === buf.length ? EMPTY : buf.subarray(start);
}

function makeFrame(raw: Buffer): SseFrame {
  const { event, data } = readFields(raw.toString('utf8'));
  return { raw, event, data };
}
