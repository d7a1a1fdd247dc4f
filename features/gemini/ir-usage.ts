// Gemini's usageMetadata and the IR's usage, both ways. Thoughts are outside candidatesTokenCount (total = prompt +
// candidates + tool-use prompt + thoughts), though some upstreams count them inside: that is told per answer, as
// LiteLLM does, by whether prompt + candidates already makes the total.

import { count, field } from '../../core/formats/json-fields.js';
import type { Usage } from '../../core/ir/usage.js';

export function readUsageMetadata(metadata: unknown): Usage | null {
  if (typeof metadata !== 'object' || metadata === null) return null;
  // The tool-use prompt (what a hosted tool added) is input the model read: prompt + completion stays the total.
  const prompt = count(field(metadata, 'promptTokenCount')) + count(field(metadata, 'toolUsePromptTokenCount'));
  const candidates = count(field(metadata, 'candidatesTokenCount'));
  const thoughts = count(field(metadata, 'thoughtsTokenCount'));
  const total = field(metadata, 'totalTokenCount');
  const inclusive = thoughts > 0 && total === prompt + candidates;
  const completion = inclusive ? candidates : candidates + thoughts;
  return {
    promptTokens: prompt,
    completionTokens: completion,
    // Inside promptTokenCount, as the IR counts cache reads (never more than it: an upstream's slip is not a discount).
    cachedTokens: Math.min(count(field(metadata, 'cachedContentTokenCount')), prompt),
    // Gemini reports no cache writes (its explicit caches are made by a call of their own).
    cacheWriteTokens: 0,
    reasoningTokens: Math.min(thoughts, completion),
  };
}

/**
 * Usage as a Gemini client reads it: promptTokenCount is all input, cache reads and writes included (Gemini CLI
 * takes it as the context's size); candidates leave the reasoning out, which thoughtsTokenCount tells.
 */
export function writeUsageMetadata(usage: Usage | null): Record<string, number> {
  const prompt = usage?.promptTokens ?? 0;
  const completion = usage?.completionTokens ?? 0;
  const reasoning = Math.min(usage?.reasoningTokens ?? 0, completion);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: completion - reasoning,
    totalTokenCount: prompt + completion,
    cachedContentTokenCount: Math.min(usage?.cachedTokens ?? 0, prompt),
    thoughtsTokenCount: reasoning,
  };
}
