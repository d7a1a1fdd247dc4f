// Reads Responses usage: the whole response's `usage` (also /compact's), or the one in the terminal stream event.
// input_tokens includes cached ones, as the IR counts them.

import type { Usage } from '../../ir/usage.js';
import type { SseFrame } from '../../sse/frame.js';
import type { FrameUsage } from '../format.js';
import { topLevelJson } from '../json-scan.js';
import { count, field } from '../json-fields.js';
import { withUsageCost } from '../usage-cost.js';

const NO_USAGE: FrameUsage = { usage: null, usageOnly: false };
const TERMINAL: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);
/** For frames without an `event:` line (allowed by clients), a cheap look at the type before parsing. */
const TERMINAL_DATA = /"type"\s*:\s*"response\.(completed|incomplete|failed)"/;

export function readUsage(usage: unknown): Usage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const input = field(usage, 'input_tokens_details');
  return {
    promptTokens: count(field(usage, 'input_tokens')),
    completionTokens: count(field(usage, 'output_tokens')),
    cachedTokens: count(field(input, 'cached_tokens')),
    cacheWriteTokens: count(field(input, 'cache_write_tokens')),
    reasoningTokens: count(field(field(usage, 'output_tokens_details'), 'reasoning_tokens')),
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

function isTerminal(frame: SseFrame): boolean {
  const data = frame.data;
  return data !== null && (frame.event !== null ? TERMINAL.has(frame.event) : TERMINAL_DATA.test(data));
}

/** Only the terminal event carries usage (in its `response`); every other frame is passed over unparsed. */
export function decodeFrameUsage(frame: SseFrame): FrameUsage {
  const data = frame.data;
  if (data === null || !isTerminal(frame)) return NO_USAGE;
  try {
    const usage = readUsage(field(field(JSON.parse(data), 'response'), 'usage'));
    return usage === null ? NO_USAGE : { usage, usageOnly: false, final: true };
  } catch {
    return NO_USAGE;
  }
}

const USAGE_PATH: readonly string[] = ['response', 'usage'];

/** The terminal event (response.completed and the like) with the request's cost in its response's usage. */
export function encodeFrameCost(frame: SseFrame, cost: string): SseFrame | null {
  return isTerminal(frame) ? withUsageCost(frame, USAGE_PATH, cost) : null;
}
