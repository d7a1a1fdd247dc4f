// Usage of the Embeddings API: `usage.prompt_tokens` of a whole answer, the input tokens embedded. An embedding is no
// generated text, so nothing is output (OpenAI's total_tokens equals prompt_tokens).

import type { Usage } from '../../core/ir/usage.js';
import { topLevelJson } from '../../core/formats/json-scan.js';
import { count, field } from '../../core/formats/json-fields.js';

/**
 * Null for an answer without a readable `usage.prompt_tokens` (not an embeddings answer, or one that cannot be read):
 * the quota then estimates the usage as for any answer that reports none.
 */
export function decodeUsage(body: Buffer): Usage | null {
  let usage: unknown;
  try {
    // Only `usage` is decoded: the vectors beside it are walked over, never parsed.
    usage = topLevelJson(body, 'usage');
  } catch {
    return null;
  }
  const prompt = field(usage, 'prompt_tokens');
  if (prompt === undefined) return null;
  return { promptTokens: count(prompt), completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}
