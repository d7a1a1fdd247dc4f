// The only SSE serializer: frames the gateway writes itself (errors, translated events).

import type { SseFrame } from './frame.js';

/** Builds one whole frame; multi-line data is split into several `data:` lines as the spec requires. */
export function encodeFrame(data: string, event?: string): SseFrame {
  // JSON text (every translated event) has no line breaks: one data line, without a split per frame.
  const oneLine = data.indexOf('\n') === -1 && data.indexOf('\r') === -1;
  const lines = oneLine ? `data: ${data}\n` : data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join('');
  const text = event === undefined ? `${lines}\n` : `event: ${event}\n${lines}\n`;
  return { raw: Buffer.from(text, 'utf8'), event: event ?? null, data };
}
