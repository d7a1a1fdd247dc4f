// The `prompt` of a completions request, as OpenAI takes it: a text, texts, one prompt's token ids, or several prompts'
// token ids; absent or null, one empty document. Read by the gateway's check (completions-request.ts) and by the mock's
// answer, so that both refuse the same bodies in the same words.

import { jsonTypeOf, shown } from '../../core/formats/field-reader.js';
import { invalidField, wrongType } from '../../core/formats/openai-chat/fields.js';

/** One prompt: a text, or its token ids. */
export type PromptItem = string | readonly number[];

/** What OpenAI completes when no prompt is given: the document separator, from the start of a new document. */
export const END_OF_TEXT = '<|endoftext|>';

/**
 * The prompts `prompt` holds, one completion set (`n` choices) each; throws OpenAI's 400 naming the first bad part. An
 * array holds one kind (the first item says which), token arrays are non-empty, token ids non-negative integers.
 */
export function readPrompts(prompt: unknown): PromptItem[] {
  if (prompt === undefined || prompt === null) return [END_OF_TEXT];
  if (typeof prompt === 'string') return [prompt];
  if (!Array.isArray(prompt)) throw wrongType('prompt', ['string', 'array'], jsonTypeOf(prompt));
  // No prompt, no completion: OpenAI refuses an empty array of either kind.
  if (prompt.length === 0) throw invalidField('prompt', 'expected a non-empty array');
  // A flat array of numbers is one prompt's token ids; otherwise each item is a text, or a prompt's token ids.
  if (typeof prompt[0] === 'number') return [tokensOf(prompt, 'prompt')];
  const texts = typeof prompt[0] === 'string';
  const kind = texts ? 'a string' : 'an array of token ids (integers)';
  return prompt.map((item: unknown, i): PromptItem => {
    const param = `prompt[${i}]`;
    if (texts ? typeof item !== 'string' : !Array.isArray(item)) {
      throw invalidField(param, i === 0 ? `expected a string or an array of token ids (integers), but got ${shown(item)}` : `expected ${kind}, as prompt[0] is, but got ${shown(item)}`);
    }
    return typeof item === 'string' ? item : tokensOf(item as unknown[], param);
  });
}

/** A prompt's token ids: a non-empty array of non-negative integers. */
function tokensOf(items: readonly unknown[], param: string): number[] {
  if (items.length === 0) throw invalidField(param, 'expected a non-empty array of token ids');
  for (let i = 0; i < items.length; i++) {
    const id = items[i];
    if (!Number.isSafeInteger(id) || (id as number) < 0) throw invalidField(`${param}[${i}]`, `expected a token id (a non-negative integer), but got ${shown(id)}`);
  }
  return items as number[];
}
