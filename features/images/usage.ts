// Usage of the Images API: the images made (data[] of a whole answer, the completed events of a stream) and, from
// the GPT image models, tokens with their image part (input_tokens_details, output_tokens_details).

import type { Usage } from '../../core/ir/usage.js';
import type { SseFrame } from '../../core/sse/frame.js';
import type { FrameUsage } from '../../core/formats/format.js';
import { topLevelArrayLength, topLevelJson } from '../../core/formats/json-scan.js';
import { count, field } from '../../core/formats/json-fields.js';

const NO_USAGE: FrameUsage = { usage: null, usageOnly: false };

/** The usage of `images` images, with the tokens of an Images API `usage` object when there is one. */
function imageUsage(images: number, usage: unknown): Usage {
  return {
    promptTokens: count(field(usage, 'input_tokens')),
    completionTokens: count(field(usage, 'output_tokens')),
    cachedTokens: count(field(field(usage, 'input_tokens_details'), 'cached_tokens')),
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    images,
    inputImageTokens: count(field(field(usage, 'input_tokens_details'), 'image_tokens')),
    outputImageTokens: count(field(field(usage, 'output_tokens_details'), 'image_tokens')),
  };
}

/** An answer without a `data` array is not an Images API answer: null, as for an answer that cannot be read. */
export function decodeUsage(body: Buffer): Usage | null {
  try {
    const images = topLevelArrayLength(body, 'data');
    return images === undefined ? null : imageUsage(images, topLevelJson(body, 'usage'));
  } catch {
    return null;
  }
}

/** Each `image_generation.completed` (or `image_edit.completed`) event is one image, with its request's usage. */
export function decodeFrameUsage(frame: SseFrame, previous: Usage | null): FrameUsage {
  const { event, data } = frame;
  if (data === null || !(event?.endsWith('.completed') ?? data.includes('.completed"'))) return NO_USAGE;
  let completed: unknown;
  try {
    completed = JSON.parse(data);
  } catch {
    return NO_USAGE;
  }
  const type = field(completed, 'type');
  if (type !== 'image_generation.completed' && type !== 'image_edit.completed') return NO_USAGE;
  const images = (previous?.images ?? 0) + 1;
  const usage = imageUsage(images, field(completed, 'usage'));
  if (previous === null) return { usage, usageOnly: false };
  // Several images in one stream: their counts add up.
  return {
    usage: {
      promptTokens: previous.promptTokens + usage.promptTokens,
      completionTokens: previous.completionTokens + usage.completionTokens,
      cachedTokens: previous.cachedTokens + usage.cachedTokens,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      images,
      inputImageTokens: (previous.inputImageTokens ?? 0) + (usage.inputImageTokens ?? 0),
      outputImageTokens: (previous.outputImageTokens ?? 0) + (usage.outputImageTokens ?? 0),
    },
    usageOnly: false,
  };
}
