// IR usage in the Responses shape. Reading is usage.ts's readUsage (the meter's reader, same rules).

import type { Usage } from '../../ir/usage.js';

/** Every count written, zeros included: clients read fields without checking they exist. */
export function writeUsage(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens, cache_write_tokens: usage.cacheWriteTokens },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}
