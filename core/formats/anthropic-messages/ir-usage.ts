// Writes IR usage as Anthropic counts them: input_tokens leaves out cache reads and writes, which the IR's
// promptTokens includes. Reading is ./usage.ts readUsage.

import type { Usage } from '../../ir/usage.js';

export interface AnthropicUsage {
  readonly input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly output_tokens: number;
  /** The thinking share of output_tokens (the Messages API's newer usage field), written when known so reasoning counts survive. */
  readonly output_tokens_details?: { readonly thinking_tokens: number };
}

/** Every count is written, zeros included (clients read them without checking); null usage is all zeros. */
export function writeUsage(usage: Usage | null): AnthropicUsage {
  if (usage === null) {
    return { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
  }
  return {
    // Another dialect may report a cached count above its prompt count; never send a negative number.
    input_tokens: Math.max(0, usage.promptTokens - usage.cachedTokens - usage.cacheWriteTokens),
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cachedTokens,
    output_tokens: usage.completionTokens,
    ...(usage.reasoningTokens > 0 ? { output_tokens_details: { thinking_tokens: usage.reasoningTokens } } : {}),
  };
}
