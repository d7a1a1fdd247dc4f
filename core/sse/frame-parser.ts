// The only SSE parser: splits a byte stream into whole frames, whatever the chunking, keeping the exact bytes.

import { readFields, type SseFrame } from './frame.js';

const LF = 10;
const CR = 13;

/**
 * Incremental parser. Feed chunks in arrival order; frames come out only when their blank line has arrived,
 * so a frame split anywhere (inside a CRLF, inside a multibyte character) is reassembled first.
 */
export class SseFrameParser {
  /**
   * The unfinished frame's bytes, as they arrived (none: the next byte starts a frame). Kept apart and joined
   * once, when the frame ends: joining at each read would copy a frame of several MB (an image stream's partial
   * image) again for every read of it. One array for the parser's life, emptied rather than dropped: it is old
   * by the time a long frame arrives, and a dropped old array still pointing at its reads would have the next
   * scavenge promote them all (docs/performance.md).
   */
  private readonly parts: Buffer[] = [];
  /** Bytes of the current line seen so far (0 means we are at the start of a line). */
  private lineLen = 0;
  /** The previous byte was a CR whose LF (if any) has not arrived yet. */
  private pendingCR = false;

  push(chunk: Uint8Array): SseFrame[] {
    if (chunk.length === 0) return [];
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const frames: SseFrame[] = [];
    // Where the unfinished frame starts in `buf`; before the first frame ends here, its earlier bytes are in `parts`.
    let start = 0;
    if (!this.pendingCR && buf.indexOf(CR) === -1) {
      // LF-only bytes (nearly every stream): jump from line end to line end with indexOf, not byte by byte.
      let i = 0;
      for (let lf = buf.indexOf(LF, i); lf !== -1; lf = buf.indexOf(LF, i)) {
        if (this.lineLen === 0 && lf === i) {
          frames.push(makeFrame(this.frameBytes(buf, start, lf + 1)));
          start = lf + 1;
        }
        this.lineLen = 0;
        i = lf + 1;
      }
      this.lineLen += buf.length - i;
      this.keep(buf, start);
      return frames;
    }
    for (let i = 0; i < buf.length; i++) {
      const b = buf[i];
      if (this.pendingCR) {
        this.pendingCR = false;
        if (b === LF) {
          // The LF of a CRLF whose CR already ended a line; if that line was blank the frame ends here.
          if (this.lineLen === -1) {
            frames.push(makeFrame(this.frameBytes(buf, start, i + 1)));
            start = i + 1;
            this.lineLen = 0;
          }
          continue;
        }
        if (this.lineLen === -1) {
          // A lone CR ended the blank line: the frame ended just before this byte.
          frames.push(makeFrame(this.frameBytes(buf, start, i)));
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
          frames.push(makeFrame(this.frameBytes(buf, start, i + 1)));
          start = i + 1;
        }
        this.lineLen = 0;
      } else {
        this.lineLen = this.lineLen === -1 ? 1 : this.lineLen + 1;
      }
    }
    this.keep(buf, start);
    return frames;
  }

  /** At end of stream: whatever is left (a frame without its blank line) as one last frame, if any. */
  end(): SseFrame[] {
    const rest = this.parts;
    this.lineLen = 0;
    this.pendingCR = false;
    if (rest.length === 0) return [];
    const raw = rest.length === 1 ? (rest[0] as Buffer) : Buffer.concat(rest);
    rest.length = 0;
    return [makeFrame(raw)];
  }

  /** A frame that ends at `end` of `buf`: a view of `buf`, or, when it began in earlier reads, those joined to it. */
  private frameBytes(buf: Buffer, start: number, end: number): Buffer {
    const parts = this.parts;
    if (parts.length === 0) return buf.subarray(start, end);
    // Only the first frame of a read can have begun earlier, and it starts at index 0 of this one.
    parts.push(buf.subarray(0, end));
    const joined = Buffer.concat(parts);
    parts.length = 0;
    return joined;
  }

  /**
   * Keeps the unfinished frame from `start` for the next push. Nothing when nothing is left: an empty view would
   * hold the whole read (its memory and Buffer) until the next one, which on a paced stream is long enough for
   * V8 to move it to the old generation.
   */
  private keep(buf: Buffer, start: number): void {
    if (start < buf.length) this.parts.push(start === 0 ? buf : buf.subarray(start));
  }
}

function makeFrame(raw: Buffer): SseFrame {
  const { event, data } = readFields(raw.toString('utf8'));
  return { raw, event, data };
}
