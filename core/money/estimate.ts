// The most a request may cost, reserved before it is sent: its input estimated from the body's size and a budget
// per image and file (media-estimate.ts), its output at its own cap (the fields its format's upstream honours:
// ClientFormat.outputCaps, read by output-cap.ts, the reader translation uses too) or
// pricing.default_output_reserve, images at `n` each. The reservation is released at the end for the actual cost;
// a request that runs over its reservation (an estimate too low) is still charged in full.

import type { ParsedRequest } from '../formats/format.js';
import { outputCapOf } from '../formats/output-cap.js';
import type { Usage } from '../ir/usage.js';
import type { Ratio } from './decimal.js';
import { IMAGE_INPUT_TOKENS, mediaInputTokens } from './media-estimate.js';
import { costOf, type ModelPrice } from './price.js';

/** Roughly the fewest bytes of JSON a token takes; bytes / 4 over-estimates most bodies, as a reservation should. */
const BYTES_PER_TOKEN = 4;

/**
 * Chat's `n` asks for that many choices, each up to the cap; an image request for `images` images; a format that
 * counts its answers otherwise says how many (ParsedRequest.outputs: completions' best_of x prompts).
 */
function outputsOf(request: ParsedRequest): number {
  if (request.images !== undefined) return request.images;
  if (request.outputs !== undefined) return request.outputs;
  const choices = request.head['n'];
  return typeof choices === 'number' && Number.isSafeInteger(choices) && choices > 1 ? choices : 1;
}

/**
 * A request's input tokens as estimated before it is sent: its body's bytes / 4, and a budget for each image and file
 * (media-estimate.ts); a form's text fields by their length / 4, and each of its files as an image (the forms priced
 * by tokens are image edits).
 */
export function inputEstimate(request: ParsedRequest): number {
  if (request.contentType?.startsWith('multipart/') !== true) return Math.ceil(request.raw.length / BYTES_PER_TOKEN) + mediaInputTokens(request.head);
  let text = 0;
  for (const key in request.head) {
    const value = request.head[key];
    if (typeof value === 'string') text += key.length + value.length;
  }
  return Math.ceil(text / BYTES_PER_TOKEN) + (request.formFiles ?? 0) * IMAGE_INPUT_TOKENS;
}

/**
 * The usage of a stream cut before its end (the client left, the upstream broke): the input as reported, else as
 * estimated; the output as reported, or, when more was delivered than reported, one token per stream frame the
 * client was sent (a stream's deltas carry about a token each; its few framing events make it a slight over-count).
 * `estimated` says whether anything was not the upstream's own count.
 */
export function cutStreamUsage(request: ParsedRequest, caps: readonly string[], reported: Usage | null, framesSent: number): { readonly usage: Usage; readonly estimated: boolean } {
  // Never more than the request let the model write (framing frames would otherwise count past a small max_tokens).
  const cap = outputCapOf(request.head, caps);
  const delivered = cap === null ? framesSent : Math.min(framesSent, cap * outputsOf(request));
  const output = reported === null || delivered > reported.completionTokens ? delivered : reported.completionTokens;
  if (reported !== null && output === reported.completionTokens) return { usage: reported, estimated: false };
  const base: Usage = reported ?? { promptTokens: inputEstimate(request), completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  return {
    usage: {
      promptTokens: base.promptTokens,
      completionTokens: output,
      cachedTokens: base.cachedTokens,
      cacheWriteTokens: base.cacheWriteTokens,
      reasoningTokens: base.reasoningTokens,
    },
    estimated: true,
  };
}

/**
 * The tokens a request is admitted against by a tokens-per-minute limit: its input estimated from the body, plus the
 * output its own cap allows (no default: a request without max_tokens is counted by its input until its usage is
 * known, as the limit is corrected to the usage at its end).
 */
export function requestTokens(request: ParsedRequest, caps: readonly string[]): number {
  const cap = outputCapOf(request.head, caps);
  return inputEstimate(request) + (cap === null ? 0 : cap * outputsOf(request));
}

/**
 * The usage of a whole answer whose upstream reported none: the input estimated from the request's body, the output
 * from the answer's (bytes / 4, its JSON framing counted too: a slight over-count), never more than the request's
 * own cap.
 */
export function answerUsage(request: ParsedRequest, caps: readonly string[], answerBytes: number): Usage {
  const cap = outputCapOf(request.head, caps);
  const delivered = Math.ceil(answerBytes / BYTES_PER_TOKEN);
  const output = cap === null ? delivered : Math.min(delivered, cap * outputsOf(request));
  return { promptTokens: inputEstimate(request), completionTokens: output, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}

/**
 * The usage a request could have at most: its input estimated, its output at its cap (or `defaultOutputReserve`)
 * for each choice or image. What is reserved; also what an answer whose upstream reported no usage is charged.
 */
function maxUsage(request: ParsedRequest, caps: readonly string[], defaultOutputReserve: number): Usage {
  const images = request.images;
  const output = (outputCapOf(request.head, caps) ?? defaultOutputReserve) * outputsOf(request);
  const usage: Usage = { promptTokens: inputEstimate(request), completionTokens: output, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  return images === undefined ? usage : Object.assign(usage, { images });
}

/** The usage a request could have at most, priced as its cost would be; `caps`: its format's (ClientFormat.outputCaps). */
export function maxCost(request: ParsedRequest, caps: readonly string[], price: ModelPrice, multiplier: Ratio, defaultOutputReserve: number): bigint {
  const usage = maxUsage(request, caps, defaultOutputReserve);
  // Which of the tokens will be images is not known before: each is reserved at the dearer of its two prices.
  if (price.inputImage > price.input) Object.assign(usage, { inputImageTokens: usage.promptTokens });
  if (price.outputImage > price.output) Object.assign(usage, { outputImageTokens: usage.completionTokens });
  return costOf(usage, price, multiplier);
}
