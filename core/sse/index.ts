export type { SseFrame } from './frame.js';
export { SseFrameParser } from './frame-parser.js';
export { frameBatches, PASS_THROUGH, type FrameTransform } from './frame-batches.js';
export { encodeFrame } from './frame-writer.js';
