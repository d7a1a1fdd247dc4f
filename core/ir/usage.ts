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
}

export const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
