// The mock's completions as a stream, as OpenAI streams them: one chunk per token, the choices taking turns (a chunk
// names its choice by `index`), the echoed prompt first in one chunk each, then each choice's last chunk with its
// finish_reason and no text; with include_usage, `usage: null` on each chunk and a last one with no choices and the
// usage; then `[DONE]`.

import { setTimeout as sleep } from 'node:timers/promises';
import type { MockCompletions } from './mock-answer.js';
import { logprobsOf, type MockToken } from './mock-text.js';

export async function* streamCompletions(answer: MockCompletions, includeUsage: boolean, delayMs: number, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const frame = (choices: unknown[], usage?: unknown): Buffer => {
    const chunk: Record<string, unknown> = { id: answer.id, object: 'text_completion', created: answer.created, model: answer.model, choices };
    if (includeUsage) chunk['usage'] = usage ?? null;
    return Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`);
  };
  const piece = (tokens: readonly MockToken[], index: number, opens: boolean): Buffer =>
    frame([{ text: tokens.map((t) => t.text).join(''), index, logprobs: answer.logprobs === null ? null : logprobsOf(tokens, answer.logprobs, opens), finish_reason: null }]);
  if (answer.echo) {
    for (let index = 0; index < answer.choices.length; index++) yield piece(answer.choices[index]?.promptTokens ?? [], index, true);
  }
  const longest = answer.choices.reduce((most, choice) => Math.max(most, choice.tokens.length), 0);
  for (let at = 0; at < longest; at++) {
    if (delayMs > 0) await sleep(delayMs, undefined, { signal });
    signal.throwIfAborted();
    for (let index = 0; index < answer.choices.length; index++) {
      const token = answer.choices[index]?.tokens[at];
      if (token !== undefined) yield piece([token], index, false);
    }
  }
  for (let index = 0; index < answer.choices.length; index++) {
    yield frame([{ text: '', index, logprobs: null, finish_reason: answer.choices[index]?.finishReason }]);
  }
  if (includeUsage) yield frame([], answer.usage);
  yield Buffer.from('data: [DONE]\n\n');
}
