// Chat Completions usage and finish_reason in IR terms, both ways; shared by the whole-answer and stream codecs.

import type { FinishReason } from '../../ir/response.js';
import type { Usage } from '../../ir/usage.js';
import { ZERO_USAGE } from '../../ir/usage.js';

/** The wire usage object. Every count is written, zeros included; `cache_write_tokens` is the gateway's addition. */
export function writeUsage(usage: Usage | null): Record<string, unknown> {
  const u = usage ?? ZERO_USAGE;
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens, cache_write_tokens: u.cacheWriteTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

/**
 * An upstream finish_reason. `hasToolCalls`: some OpenAI-compatible servers say "stop" after tool calls; clients
 * of other formats (Claude Code waits for tool_use) must still learn that tools are to be run.
 */
export function readFinish(reason: unknown, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    default:
      return hasToolCalls ? 'tool_calls' : 'stop';
  }
}

/** Chat has no stop_sequence reason: a matched stop sequence is an ordinary stop. */
export function writeFinish(reason: FinishReason): string {
  return reason === 'stop_sequence' ? 'stop' : reason;
}

/** Chat ids look like `chatcmpl-...`; an id of another dialect gets the prefix (and keeps its own text after it). */
export function chatId(id: string): string {
  return id.startsWith('chatcmpl-') ? id : `chatcmpl-${id}`;
}
