// The OpenAI Images client format: POST /v1/images/generations (JSON) and /v1/images/edits (multipart). Served
// natively only (there is no counterpart in another API), answers and errors in OpenAI's shape.

import type { ClientFormat } from '../../core/formats/format.js';
import { plainFormat } from '../../core/formats/plain-format.js';
import { encodeError, encodeStreamError, isErrorFrame as isChatErrorFrame } from '../../core/formats/openai-chat/errors.js';
import { decodeImageEdit } from './edits-request.js';
import { createGenerationsDecoder } from './generations-request.js';
import { ScanMemory } from '../../core/formats/scan-memory.js';
import { decodeFrameUsage, decodeUsage } from './usage.js';
import { withinImageCaps } from './caps.js';
import type { SseFrame } from '../../core/sse/frame.js';

/** A stream's failure: `event: error`, or a data frame with a top-level `error` as on the other OpenAI APIs. */
function isErrorFrame(frame: SseFrame): boolean {
  return frame.event === 'error' || isChatErrorFrame(frame);
}

/** Image streams report usage in their completed events unasked: nothing to ask of a stream. */
function imagesFormat(decodeRequest: ClientFormat['decodeRequest']): ClientFormat {
  return plainFormat({ name: 'openai-images', decodeRequest, encodeError, encodeStreamError, isErrorFrame, decodeUsage, decodeFrameUsage, narrowAttempts: withinImageCaps });
}

export function createOpenAIImagesGenerationsFormat(memory = new ScanMemory()): ClientFormat {
  return imagesFormat(createGenerationsDecoder(memory));
}

export function createOpenAIImagesEditsFormat(): ClientFormat {
  return imagesFormat(decodeImageEdit);
}
