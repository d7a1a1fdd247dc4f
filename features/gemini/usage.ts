// Gemini's token counts (`usageMetadata`, read by ir-usage.ts) from a whole answer, a JSON-array stream or one SSE
// event, for the meter. A stream reports running totals: each event's count replaces the last, never adds to it.

import type { FrameUsage } from '../../core/formats/format.js';
import { withUsageCost } from '../../core/formats/usage-cost.js';
import type { Usage } from '../../core/ir/usage.js';
import { readUsageMetadata } from './ir-usage.js';
import type { SseFrame } from '../../core/sse/frame.js';

const NO_USAGE: FrameUsage = { usage: null, usageOnly: false };

/** A whole answer: one GenerateContentResponse, or the JSON array of a stream asked for without `alt=sse` (its last usage). */
export function decodeUsage(body: Buffer): Usage | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const answers = Array.isArray(parsed) ? parsed : [parsed];
  for (let i = answers.length - 1; i >= 0; i--) {
    const answer: unknown = answers[i];
    if (typeof answer !== 'object' || answer === null) continue;
    const usage = readUsageMetadata((answer as Record<string, unknown>)['usageMetadata']);
    if (usage !== null) return usage;
  }
  return null;
}

/** One SSE event: its usage, the stream's total so far; final once the event also says why the answer ended. */
export function decodeFrameUsage(frame: SseFrame): FrameUsage {
  const data = frame.data;
  // Most events carry usage; the cheap test spares the parse of the few that do not.
  if (data === null || !data.includes('"usageMetadata"')) return NO_USAGE;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return NO_USAGE;
  }
  if (typeof parsed !== 'object' || parsed === null) return NO_USAGE;
  const event = parsed as Record<string, unknown>;
  const usage = readUsageMetadata(event['usageMetadata']);
  if (usage === null) return NO_USAGE;
  // Final with the finish reason, or on its own after it (Gemini 3's last event: usage and no candidates).
  const candidates = event['candidates'];
  return candidates === undefined || finished(candidates) ? { usage, usageOnly: false, final: true } : { usage, usageOnly: false };
}

function finished(candidates: unknown): boolean {
  if (!Array.isArray(candidates)) return false;
  return candidates.some((candidate: unknown) => typeof candidate === 'object' && candidate !== null && typeof (candidate as Record<string, unknown>)['finishReason'] === 'string');
}

const USAGE_PATH: readonly string[] = ['usageMetadata'];

/** The last event (its usage final) with the request's price beside its counts: `usageMetadata.cost`. */
export function encodeFrameCost(frame: SseFrame, cost: string): SseFrame | null {
  return withUsageCost(frame, USAGE_PATH, cost);
}
