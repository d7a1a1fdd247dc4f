// Gemini's finishReason and the IR's finish, both ways (docs/translation.md, the Gemini rows).

import type { FinishReason } from '../../core/ir/response.js';

/** Cut for safety, recitation or policy: what the other dialects call a content filter or a refusal. */
const FILTERED: ReadonlySet<string> = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
  'IMAGE_OTHER',
  // Google gives no reason; the answer did not end on its own, and LiteLLM and new-api say content_filter too.
  'OTHER',
  'LANGUAGE',
]);

/**
 * A finishReason (or a prompt's blockReason) as the IR's. Calls present win over an ordinary end and over
 * MAX_TOKENS: Gemini sends each call whole, so they are to be run (Claude Code waits for tool_use). The malformed
 * and unexpected call reasons end the turn like STOP, as LiteLLM maps them.
 */
export function readFinish(reason: string, hasCalls: boolean): FinishReason {
  if (FILTERED.has(reason)) return 'content_filter';
  if (hasCalls) return 'tool_calls';
  return reason === 'MAX_TOKENS' ? 'length' : 'stop';
}

const REASONS: Readonly<Record<FinishReason, string>> = {
  stop: 'STOP',
  stop_sequence: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
};

/** Gemini ends a turn of calls with STOP too, and has no word for a matched stop sequence. */
export function writeFinish(reason: FinishReason): string {
  return REASONS[reason];
}
