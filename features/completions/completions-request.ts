// Reads a POST /v1/completions request: a JSON body checked against its schema (schemas/api/), its prompts item by
// item, forwarded as the client's bytes. A large body is read as a skeleton (core/formats/json-request.ts): the
// prompts are one and two levels down, where it is exact.

import type { BodyBytes } from '../../core/formats/body-bytes.js';
import type { ParsedRequest } from '../../core/formats/format.js';
import { createJsonBodyReader } from '../../core/formats/json-request.js';
import { LazyRequest } from '../../core/formats/lazy-request.js';
import { wordOpenAIProblem } from '../../core/formats/openai-chat/request.js';
import { ScanMemory } from '../../core/formats/scan-memory.js';
import { readPrompts } from './prompt-items.js';

export function createCompletionsDecoder(memory = new ScanMemory()): (raw: BodyBytes) => ParsedRequest {
  const read = createJsonBodyReader('openai-completions.request.schema.json', wordOpenAIProblem, memory);
  return function decodeCompletionsRequest(raw: BodyBytes): ParsedRequest {
    const body = read(raw);
    const { head } = body;
    const prompts = readPrompts(head['prompt']).length;
    // No conversation to keep on one upstream: the legacy API has no prompt_cache_key. The upstream generates
    // max(n, best_of) answers for each prompt, each up to max_tokens and each billed: all of them are reserved.
    const outputs = Math.max(countOf(head['n']), countOf(head['best_of'])) * prompts;
    return new LazyRequest(raw, head, body, head['model'] as string, head['stream'] === true, null, undefined, undefined, undefined, undefined, outputs);
  };
}

/** A count the schema has checked (a whole number of at least 1), or 1 when absent or null. */
function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 1 ? value : 1;
}
