// Token usage in one vocabulary, whatever format reported it.

/** Token counts of one request. `promptTokens` includes cached tokens, as OpenAI counts them. */
export interface Usage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Prompt tokens served from the provider's cache (cache reads; a subset of promptTokens). */
  readonly cachedTokens: number;
  /** Prompt tokens written to the provider's cache (Anthropic's cache_creation_input_tokens; a subset of promptTokens). */
  readonly cacheWriteTokens: number;
  /** Completion tokens spent on reasoning (a subset of completionTokens). */
  readonly reasoningTokens: number;
  /** Images made (the image endpoints); absent elsewhere. */
  readonly images?: number;
  /** Input tokens that were images (the GPT image models' input_tokens_details.image_tokens; a subset of promptTokens). */
  readonly inputImageTokens?: number;
  /** Output tokens that were images (output_tokens_details.image_tokens; a subset of completionTokens). */
  readonly outputImageTokens?: number;
  /** Seconds of timed output made (a generated clip's reported duration); absent elsewhere. */
  readonly seconds?: number;
}

export const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

/**
 * The most of any one count a request's usage may hold. No request comes near it (a context window is a few million
 * tokens); an upstream reporting more is wrong, and a count past it would not fit the store's INTEGER columns
 * (PostgreSQL's are 32-bit), fail its usage batch, and hold back every record behind it.
 */
export const MAX_USAGE_COUNT = 100_000_000;

/** `usage` with every count at most MAX_USAGE_COUNT: the same object when none is over. */
export function boundedUsage(usage: Usage | null): Usage | null {
  if (usage === null) return null;
  const over = (n: number | undefined): boolean => n !== undefined && n > MAX_USAGE_COUNT;
  if (
    !over(usage.promptTokens) &&
    !over(usage.completionTokens) &&
    !over(usage.cachedTokens) &&
    !over(usage.cacheWriteTokens) &&
    !over(usage.reasoningTokens) &&
    !over(usage.images) &&
    !over(usage.inputImageTokens) &&
    !over(usage.outputImageTokens) &&
    !over(usage.seconds)
  ) {
    return usage;
  }
  const bound = (n: number): number => Math.min(n, MAX_USAGE_COUNT);
  const bounded: Usage = {
    promptTokens: bound(usage.promptTokens),
    completionTokens: bound(usage.completionTokens),
    cachedTokens: bound(usage.cachedTokens),
    cacheWriteTokens: bound(usage.cacheWriteTokens),
    reasoningTokens: bound(usage.reasoningTokens),
  };
  return Object.assign(
    bounded,
    usage.images === undefined ? {} : { images: bound(usage.images) },
    usage.inputImageTokens === undefined ? {} : { inputImageTokens: bound(usage.inputImageTokens) },
    usage.outputImageTokens === undefined ? {} : { outputImageTokens: bound(usage.outputImageTokens) },
    usage.seconds === undefined ? {} : { seconds: bound(usage.seconds) },
  );
}
