// The mock channel's completions, deterministic: each prompt's tokens (a text at four characters a token, as the
// mock's chat counts; token ids one each), each candidate's text as word pieces (one token a piece, as the mock's chat
// streams them) cut at max_tokens, and log probabilities derived from each token's hash.

import { createHash } from 'node:crypto';
import { END_OF_TEXT, type PromptItem } from './prompt-items.js';

/** Characters a prompt token spans: the mock's one rule for counting text (core/providers/mock/reply.ts). */
const CHARS_PER_TOKEN = 4;
/** Tokens the alternatives of `top_logprobs` are drawn from (never the token chosen). */
const ALTERNATIVES: readonly string[] = [' the', ' a', ',', '.', ' and', ' of', ' to'];

/** One token of a choice's text: what it reads, and where it starts in the text from the prompt's start. */
export interface MockToken {
  readonly text: string;
  readonly offset: number;
}

/** One candidate completion of a prompt. */
export interface MockCompletion {
  /** The prompt's tokens (echoed when asked), then the completion's. */
  readonly promptTokens: readonly MockToken[];
  readonly tokens: readonly MockToken[];
  readonly finishReason: 'stop' | 'length';
}

/** OpenAI's `logprobs` of a choice, or of one stream chunk's tokens. */
export interface MockLogprobs {
  readonly tokens: string[];
  readonly token_logprobs: (number | null)[];
  readonly top_logprobs: (Record<string, number> | null)[] | null;
  readonly text_offset: number[];
}

/** A prompt's tokens: the separator alone is one; a text in runs of four characters; token ids as `<|id|>` each. */
export function promptTokensOf(prompt: PromptItem): MockToken[] {
  if (typeof prompt !== 'string') {
    let offset = 0;
    return prompt.map((id) => {
      const token = { text: `<|${id}|>`, offset };
      offset += token.text.length;
      return token;
    });
  }
  if (prompt === END_OF_TEXT) return [{ text: prompt, offset: 0 }];
  const tokens: MockToken[] = [];
  for (let offset = 0; offset < prompt.length; offset += CHARS_PER_TOKEN) tokens.push({ text: prompt.slice(offset, offset + CHARS_PER_TOKEN), offset });
  return tokens;
}

/** The tokens of a text the mock counts (`suffix`): four characters a token. */
export function textTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * Candidate `candidate` (from 0) of a prompt: the channel's `mock.reply`, or the mock's own sentence naming the
 * candidate first (so that the choices differ from their first token) and the prompt's end, as word pieces with their leading space (as a tokenizer splits them), at most
 * `maxTokens` of them (finish_reason `length` when cut).
 */
export function mockCompletion(prompt: readonly MockToken[], candidate: number, maxTokens: number, reply: string | null): MockCompletion {
  const promptText = prompt.map((t) => t.text).join('');
  const tail = promptText.length > 40 ? `...${promptText.slice(-40)}` : promptText;
  const text = reply ?? ` Completion ${candidate + 1} from the mock channel, which read "${tail}".`;
  const pieces = text.match(/\s*\S+|\s+$/g) ?? [];
  const kept = pieces.slice(0, maxTokens);
  let offset = promptText.length;
  const tokens = kept.map((piece) => {
    const token = { text: piece, offset };
    offset += piece.length;
    return token;
  });
  return { promptTokens: prompt, tokens, finishReason: kept.length < pieces.length ? 'length' : 'stop' };
}

/** A token's log probability: from its hash, in (-4, 0], six decimals; the same token always gets the same. */
function logprobOf(token: string): number {
  const value = createHash('sha256').update(token, 'utf8').digest().readUInt32LE(0) / 2 ** 32;
  return -Math.round(value * 4_000_000) / 1_000_000;
}

/** The `top` most likely tokens at a position: the one chosen first, then alternatives each half a nat less likely. */
function topOf(token: string, top: number): Record<string, number> {
  const best = logprobOf(token);
  const out: Record<string, number> = { [token]: best };
  const others = ALTERNATIVES.filter((alt) => alt !== token);
  for (let i = 0; i + 1 < top && i < others.length; i++) out[others[i] as string] = Math.round((best - 0.5 * (i + 1)) * 1_000_000) / 1_000_000;
  return out;
}

/**
 * The logprobs of `tokens` with `top` alternatives each (`top_logprobs` null for 0). `first`: whether tokens[0] opens
 * the text, which has no probability (an echoed prompt's first token: null, as OpenAI gives it).
 */
export function logprobsOf(tokens: readonly MockToken[], top: number, first: boolean): MockLogprobs {
  const opens = (i: number): boolean => first && i === 0;
  return {
    tokens: tokens.map((t) => t.text),
    token_logprobs: tokens.map((t, i) => (opens(i) ? null : logprobOf(t.text))),
    top_logprobs: top === 0 ? null : tokens.map((t, i) => (opens(i) ? null : topOf(t.text, top))),
    text_offset: tokens.map((t) => t.offset),
  };
}
