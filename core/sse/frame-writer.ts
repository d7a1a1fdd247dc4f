// The only SSE serializer: frames the gateway writes itself (errors, translated events).

import type { SseFrame } from './frame.js';

/** Builds one whole frame; multi-line data is split into several `data:` lines as the spec requires. */
export function encodeFrame(data: string, event?: string): SseFrame {
  return { raw: Buffer.from(frameText(data, event), 'utf8'), event: event ?? null, data };
}

/** What a frame says: its data and, when not the default, its event name. */
export interface FrameText {
  readonly data: string;
  readonly event?: string | undefined;
}

/**
 * Several frames in one buffer, each frame's `raw` a view of its part: side by side, they leave in one write
 * (pipeline/run.ts), and a batch costs one allocation instead of one per frame.
 */
export function encodeFrames(frames: readonly FrameText[]): SseFrame[] {
  if (frames.length === 1) {
    const only = frames[0] as FrameText;
    return [encodeFrame(only.data, only.event)];
  }
  const texts = frames.map((f) => frameText(f.data, f.event));
  const buf = Buffer.from(texts.join(''), 'utf8');
  const out: SseFrame[] = [];
  let offset = 0;
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i] as FrameText;
    const end = offset + Buffer.byteLength(texts[i] as string, 'utf8');
    out.push({ raw: buf.subarray(offset, end), event: frame.event ?? null, data: frame.data });
    offset = end;
  }
  return out;
}

function frameText(data: string, event: string | undefined): string {
  // JSON text (every translated event) has no line breaks: one data line, without a split per frame.
  const oneLine = data.indexOf('\n') === -1 && data.indexOf('\r') === -1;
  const lines = oneLine ? `data: ${data}\n` : data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join('');
  return event === undefined ? `${lines}\n` : `event: ${event}\n${lines}\n`;
}
