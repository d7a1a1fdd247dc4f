export type { SseFrame } from './frame.js';
export { SseFrameParser, parseSseStream } from './frame-parser.js';
export { encodeFrame } from './frame-writer.js';
