// Reads OpenAI Chat usage objects, from a whole response or from one stream chunk.

import type { Usage } from '../../ir/usage.js';
import type { SseFrame } from '../../sse/frame.js';
import type { BodyBytes } from '../body-bytes.js';
import type { FrameUsage, ParsedRequest } from '../format.js';
import { setBodyField } from '../json-edit.js';
import { topLevelJson } from '../json-scan.js';
import { count, field } from '../json-fields.js';
import { withUsageCost } from '../usage-cost.js';

const NO_USAGE: FrameUsage = { usage: null, usageOnly: false };
/** Cheap pre-check so that only the chunk that carries usage is parsed. */
const HAS_USAGE = /"usage"\s*:\s*\{/;

export function readUsage(usage: unknown): Usage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const prompt = field(usage, 'prompt_tokens_details');
  return {
    promptTokens: count(field(usage, 'prompt_tokens')),
    completionTokens: count(field(usage, 'completion_tokens')),
    cachedTokens: count(field(prompt, 'cached_tokens')),
    // Not an OpenAI field: the gateway writes it when translating an upstream that reports cache writes (Anthropic).
    cacheWriteTokens: count(field(prompt, 'cache_write_tokens')),
    reasoningTokens: count(field(field(usage, 'completion_tokens_details'), 'reasoning_tokens')),
  };
}

export function decodeUsage(body: Buffer): Usage | null {
  try {
    // Only the usage value is parsed: a long completion's text is skipped over, not decoded.
    return readUsage(topLevelJson(body, 'usage'));
  } catch {
    return null;
  }
}

export function decodeFrameUsage(frame: SseFrame): FrameUsage {
  const data = frame.data;
  if (data === null || !HAS_USAGE.test(data)) return NO_USAGE;
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return NO_USAGE;
  }
  const usage = readUsage(field(chunk, 'usage'));
  const choices = field(chunk, 'choices');
  // Chat reports usage once, at the end of the stream.
  if (usage === null) return { usage, usageOnly: false };
  return { usage, usageOnly: Array.isArray(choices) && choices.length === 0, final: true };
}

const USAGE_PATH: readonly string[] = ['usage'];

/** The usage chunk (the one the client asked for with include_usage) with the request's cost in its usage, as OpenRouter's. */
export function encodeFrameCost(frame: SseFrame, cost: string): SseFrame | null {
  return withUsageCost(frame, USAGE_PATH, cost);
}

/** Spread last in the edited stream_options, so that include_usage is true whatever the client sent. */
const INCLUDE_USAGE: Readonly<Record<string, unknown>> = { include_usage: true };

/** Usage in a chat stream comes only when asked for (`stream_options.include_usage`), in one extra chunk. */
export function requestStreamUsage(request: ParsedRequest, body: BodyBytes): BodyBytes | null {
  const options = request.head['stream_options'];
  const current = typeof options === 'object' && options !== null ? (options as Record<string, unknown>) : {};
  if (current['include_usage'] === true) return null;
  // The client's other fields as a spread copies them ("__proto__" included), without a literal that starts with a
  // spread (docs/performance.md, "Object literals V8 builds in its runtime"); the last include_usage wins. The one
  // difference from `{ ...current, include_usage: true }`: include_usage comes first when the client had none.
  return setBodyField(body, 'stream_options', { include_usage: true, ...current, ...INCLUDE_USAGE });
}
