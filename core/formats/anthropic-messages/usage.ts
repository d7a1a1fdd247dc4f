// Reads Anthropic usage: a whole message's `usage`, or a stream's message_start usage and the cumulative
// message_delta usage. input_tokens excludes cache reads and writes; the IR's promptTokens includes both.

import type { Usage } from '../../ir/usage.js';
import type { SseFrame } from '../../sse/frame.js';
import type { BodyBytes } from '../body-bytes.js';
import type { FrameUsage } from '../format.js';
import { topLevelJson } from '../json-scan.js';
import { count, field } from '../json-fields.js';
import { withUsageCost } from '../usage-cost.js';

const NO_USAGE: FrameUsage = { usage: null, usageOnly: false };

interface Parts {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  thinking: number;
}

function partsOf(usage: Usage): Parts {
  return {
    input: usage.promptTokens - usage.cachedTokens - usage.cacheWriteTokens,
    cacheRead: usage.cachedTokens,
    cacheWrite: usage.cacheWriteTokens,
    output: usage.completionTokens,
    thinking: usage.reasoningTokens,
  };
}

/** Reads an Anthropic usage object over what was known before (all zero for a whole message). */
export function readUsage(usage: unknown, previous: Usage | null): Usage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const before: Parts = previous === null ? { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, thinking: 0 } : partsOf(previous);
  // Absent or null counts (message_delta leaves unchanged ones null) keep what was known before.
  const input = count(field(usage, 'input_tokens'), before.input);
  const cacheRead = count(field(usage, 'cache_read_input_tokens'), before.cacheRead);
  const cacheWrite = count(field(usage, 'cache_creation_input_tokens'), before.cacheWrite);
  return {
    promptTokens: input + cacheRead + cacheWrite,
    completionTokens: count(field(usage, 'output_tokens'), before.output),
    cachedTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: count(field(field(usage, 'output_tokens_details'), 'thinking_tokens'), before.thinking),
  };
}

export function decodeUsage(body: Buffer): Usage | null {
  try {
    // Only the usage value is parsed: a long completion's text is skipped over, not decoded.
    return readUsage(topLevelJson(body, 'usage'), null);
  } catch {
    return null;
  }
}

/** Only message_start and message_delta carry usage; every other frame is passed over without parsing. */
export function decodeFrameUsage(frame: SseFrame, previous: Usage | null): FrameUsage {
  if (frame.data === null || (frame.event !== 'message_start' && frame.event !== 'message_delta')) return NO_USAGE;
  let event: unknown;
  try {
    event = JSON.parse(frame.data);
  } catch {
    return NO_USAGE;
  }
  const usage = frame.event === 'message_start' ? field(field(event, 'message'), 'usage') : field(event, 'usage');
  const merged = readUsage(usage, previous);
  if (merged === null) return NO_USAGE;
  // message_start's output count is a placeholder; message_delta's is the final, cumulative one.
  return frame.event === 'message_delta' ? { usage: merged, usageOnly: false, final: true } : { usage: merged, usageOnly: false };
}

const USAGE_PATH: readonly string[] = ['usage'];

/** message_delta, whose cumulative usage is the stream's last word, with the request's cost in it. */
export function encodeFrameCost(frame: SseFrame, cost: string): SseFrame | null {
  return frame.event === 'message_delta' ? withUsageCost(frame, USAGE_PATH, cost) : null;
}

/** Anthropic streams always carry usage; nothing to ask for. */
export function requestStreamUsage(): BodyBytes | null {
  return null;
}
