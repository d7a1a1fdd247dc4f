// Gemini's output cap, as its format declares it (ClientFormat.outputCaps) and its codec reads it for translation.

/**
 * Gemini's generateContent honours generationConfig.maxOutputTokens, and Google's parser takes each name in camel or
 * snake case: every spelling is a cap, so that no spelling can pass unreserved.
 */
export const GEMINI_OUTPUT_CAPS: readonly string[] = [
  'generationConfig.maxOutputTokens',
  'generationConfig.max_output_tokens',
  'generation_config.maxOutputTokens',
  'generation_config.max_output_tokens',
];
