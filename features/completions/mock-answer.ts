// The mock channel's Completions API: POST /v1/completions answered offline, `n` choices per prompt (of `best_of`
// candidates, every one counted as OpenAI bills them), `echo`, `logprobs` when asked (null otherwise), as one answer or a
// stream, with exact usage. What the real API refuses, the mock refuses in its words.

import { randomBytes } from 'node:crypto';
import { GatewayError } from '../../core/errors.js';
import { encodeError } from '../../core/formats/openai-chat/errors.js';
import { openaiFields } from '../../core/formats/openai-chat/fields.js';
import { jsonResponse, renderedResponse, sseResponse } from '../../core/providers/mock/respond.js';
import type { UpstreamRequest, UpstreamResponse } from '../../core/providers/provider.js';
import { logprobsOf, mockCompletion, promptTokensOf, textTokens, type MockCompletion } from './mock-text.js';
import { streamCompletions } from './mock-stream.js';
import { readPrompts } from './prompt-items.js';

/** OpenAI's default cap of a completion, when max_tokens is absent or null. */
const DEFAULT_MAX_TOKENS = 16;
/** The most candidates one mock answer makes (prompts x best_of): a small request must not make a huge answer. */
const MAX_CANDIDATES = 2048;
/** The most characters of prompt one mock answer echoes (each choice echoes its prompt). */
const MAX_ECHOED_CHARS = 8 * 1024 * 1024;

/** The sampling fields and their ranges in OpenAI's API. */
const SAMPLING_RANGES: readonly (readonly [string, number, number])[] = [
  ['temperature', 0, 2],
  ['top_p', 0, 1],
  ['presence_penalty', -2, 2],
  ['frequency_penalty', -2, 2],
];

/** What a mock answer is made of: the choices returned, and the usage of every candidate made. */
export interface MockCompletions {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  /** Returned, in index order: prompt p's choice c is index p x n + c. */
  readonly choices: readonly MockCompletion[];
  readonly echo: boolean;
  /** `logprobs`: how many alternatives each position lists; null when not asked. */
  readonly logprobs: number | null;
  readonly usage: { readonly prompt_tokens: number; readonly completion_tokens: number; readonly total_tokens: number };
}

/** POST /v1/completions: a JSON body the gateway has checked (its model, prompt and types). */
export function answerCompletions(request: UpstreamRequest): Promise<UpstreamResponse> {
  let body: unknown;
  try {
    body = JSON.parse(request.body.joined().toString('utf8'));
  } catch (err) {
    return Promise.reject(new GatewayError('GW_ERR_INTERNAL', 'the mock channel got a body that is not JSON', { cause: err }));
  }
  let answer: MockCompletions;
  let includeUsage: boolean;
  try {
    const fields = openaiFields.object(body, 'body');
    answer = mockCompletionsOf(fields, request.stream, request.channel.mock.reply);
    includeUsage = openaiFields.optionalObject(fields['stream_options'], 'stream_options')?.['include_usage'] === true;
  } catch (err) {
    if (!(err instanceof GatewayError)) return Promise.reject(err);
    return Promise.resolve(renderedResponse(encodeError(err)));
  }
  if (!request.stream) return Promise.resolve(jsonResponse(wholeAnswer(answer)));
  return Promise.resolve(sseResponse(streamCompletions(answer, includeUsage, request.channel.mock.chunkDelayMs, request.abort.signal)));
}

/** The answer to `body`, or OpenAI's 400 for what it refuses. */
export function mockCompletionsOf(body: Readonly<Record<string, unknown>>, stream: boolean, reply: string | null): MockCompletions {
  const prompts = readPrompts(body['prompt']).map(promptTokensOf);
  const model = openaiFields.string(body['model'], 'model');
  const n = integerIn(body['n'], 'n', 1, 128) ?? 1;
  const bestOf = integerIn(body['best_of'], 'best_of', 1, 20) ?? n;
  if (bestOf < n) throw openaiFields.invalid('best_of', `best_of must be greater than or equal to n (${n})`);
  if (stream && bestOf > n) throw openaiFields.invalid('best_of', 'results cannot be streamed when best_of is greater than n');
  if (prompts.length * bestOf > MAX_CANDIDATES) {
    throw openaiFields.invalid('prompt', `the mock channel makes at most ${MAX_CANDIDATES} completions a request (prompts x best_of), but this asks ${prompts.length * bestOf}`);
  }
  const logprobs = integerIn(body['logprobs'], 'logprobs', 0, 5);
  const maxTokens = integerIn(body['max_tokens'], 'max_tokens', 0, Number.MAX_SAFE_INTEGER) ?? DEFAULT_MAX_TOKENS;
  const echo = openaiFields.optionalBoolean(body['echo'], 'echo') === true;
  checkSampling(body, stream);
  const suffix = openaiFields.optionalString(body['suffix'], 'suffix');
  if (echo && prompts.reduce((sum, p) => sum + p.reduce((chars, t) => chars + t.text.length, 0), 0) * n > MAX_ECHOED_CHARS) {
    throw openaiFields.invalid('echo', `the mock channel echoes at most ${MAX_ECHOED_CHARS} characters of prompt a request`);
  }
  const choices: MockCompletion[] = [];
  let completionTokens = 0;
  for (const prompt of prompts) {
    for (let candidate = 0; candidate < bestOf; candidate++) {
      const made = mockCompletion(prompt, candidate, maxTokens, reply);
      // Every candidate is generated and billed; the first n are returned (the mock's "best").
      completionTokens += made.tokens.length;
      if (candidate < n) choices.push(made);
    }
  }
  const promptTokens = prompts.reduce((sum, p) => sum + p.length, 0) + (suffix === null ? 0 : textTokens(suffix) * prompts.length);
  const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
  return { id: `cmpl-mock${randomBytes(9).toString('hex')}`, created: Math.floor(Date.now() / 1000), model, choices, echo, logprobs, usage };
}

/** An integer from `min` to `max`, or null when absent. */
function integerIn(value: unknown, param: string, min: number, max: number): number | null {
  const number = openaiFields.optionalNumber(value, param);
  if (number === null) return null;
  if (!Number.isSafeInteger(number) || number < min || number > max) throw openaiFields.invalid(param, `expected an integer from ${min} to ${max}, but got ${number}`);
  return number;
}

/** The sampling fields' ranges, `stop`'s length and `stream_options` without a stream, as OpenAI refuses them. */
function checkSampling(body: Readonly<Record<string, unknown>>, stream: boolean): void {
  for (const [param, min, max] of SAMPLING_RANGES) {
    const value = openaiFields.optionalNumber(body[param], param);
    if (value !== null && (value < min || value > max)) throw openaiFields.invalid(param, `expected a number from ${min} to ${max}, but got ${value}`);
  }
  const stop = body['stop'];
  if (Array.isArray(stop) && (stop.length === 0 || stop.length > 4)) throw openaiFields.invalid('stop', 'expected 1 to 4 stop sequences');
  const bias = openaiFields.optionalObject(body['logit_bias'], 'logit_bias') ?? {};
  for (const [token, value] of Object.entries(bias)) {
    if (!/^\d+$/.test(token) || typeof value !== 'number' || value < -100 || value > 100) throw openaiFields.invalid('logit_bias', `expected token ids mapped to a bias from -100 to 100, but got ${token}: ${String(value)}`);
  }
  if (!stream && body['stream_options'] !== undefined && body['stream_options'] !== null) {
    throw openaiFields.invalid('stream_options', 'stream_options is only allowed when stream is true');
  }
}

/** A choice's logprobs, over what its text holds (the echoed prompt first); null when not asked. */
export function choiceLogprobs(answer: MockCompletions, choice: MockCompletion): ReturnType<typeof logprobsOf> | null {
  if (answer.logprobs === null) return null;
  return answer.echo ? logprobsOf([...choice.promptTokens, ...choice.tokens], answer.logprobs, true) : logprobsOf(choice.tokens, answer.logprobs, false);
}

function textOf(answer: MockCompletions, choice: MockCompletion): string {
  const completion = choice.tokens.map((t) => t.text).join('');
  return answer.echo ? choice.promptTokens.map((t) => t.text).join('') + completion : completion;
}

function wholeAnswer(answer: MockCompletions): Record<string, unknown> {
  const choices = answer.choices.map((choice, index) => ({ text: textOf(answer, choice), index, logprobs: choiceLogprobs(answer, choice), finish_reason: choice.finishReason }));
  return { id: answer.id, object: 'text_completion', created: answer.created, model: answer.model, choices, usage: answer.usage };
}
