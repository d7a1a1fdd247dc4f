// The `input` of an embeddings request, as OpenAI takes it: one text, texts, one text's token ids, or several texts'
// token ids. Read by the gateway's check (embeddings-request.ts) and by the mock's answer, so that both refuse the
// same bodies in the same words.

import type { GatewayError } from '../../core/errors.js';
import { jsonTypeOf, shown } from '../../core/formats/field-reader.js';
import { invalidField, missingField, wrongType } from '../../core/formats/openai-chat/fields.js';

/** The most inputs one request may carry, as OpenAI's API allows. */
export const MAX_INPUTS = 2048;

/** One thing to embed: a text, or the token ids of one. */
export type EmbeddingInput = string | readonly number[];

/**
 * The inputs `input` holds, one per embedding the answer will carry; throws OpenAI's 400 naming the first bad part.
 * Each text and token array must be non-empty (OpenAI refuses an empty one), and an array holds one kind.
 */
export function readInputs(input: unknown): EmbeddingInput[] {
  if (input === undefined) throw missingField('input');
  if (typeof input === 'string') {
    if (input === '') throw invalidField('input', 'expected a non-empty string');
    return [input];
  }
  if (!Array.isArray(input)) throw wrongType('input', ['string', 'array'], jsonTypeOf(input));
  if (input.length === 0) throw invalidField('input', 'expected a non-empty array');
  // A flat array of numbers is one text's token ids; otherwise each item is a text, or a text's token ids.
  if (typeof input[0] === 'number') return [tokensOf(input, 'input')];
  // Counted before any item is walked: a body of thousands of tiny items costs nothing more to refuse.
  if (input.length > MAX_INPUTS) throw invalidField('input', `expected at most ${MAX_INPUTS} inputs, but got ${input.length}`);
  // The first item says which kind the array holds (or holds neither: refused at input[0]).
  const texts = typeof input[0] === 'string';
  const kind = texts ? 'a string' : 'an array of token ids (integers)';
  return input.map((item: unknown, i): EmbeddingInput => {
    const param = `input[${i}]`;
    if (texts ? typeof item !== 'string' : !Array.isArray(item)) {
      throw invalidField(param, i === 0 ? `expected a string or an array of token ids (integers), but got ${shown(item)}` : `expected ${kind}, as input[0] is, but got ${shown(item)}`);
    }
    if (typeof item !== 'string') return tokensOf(item as unknown[], param);
    if (item === '') throw invalidField(param, 'expected a non-empty string');
    return item;
  });
}

/** A text's token ids: a non-empty array of non-negative integers. */
function tokensOf(items: readonly unknown[], param: string): number[] {
  if (items.length === 0) throw invalidField(param, 'expected a non-empty array of token ids');
  for (let i = 0; i < items.length; i++) {
    const id = items[i];
    if (!Number.isSafeInteger(id) || (id as number) < 0) throw invalidField(`${param}[${i}]`, `expected a token id (a non-negative integer), but got ${shown(id)}`);
  }
  return items as number[];
}
