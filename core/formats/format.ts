// The contract of a client format: how requests are read and how answers and errors are written back.

import type { Attempt } from '../routing/router.js';
import type { ResolvedConfig } from '../config/resolved.js';
import type { ApiFormat } from '../config/resolved.js';
import type { GatewayError } from '../errors.js';
import type { Usage } from '../ir/usage.js';
import type { BodyBytes } from './body-bytes.js';
import type { UpstreamCall } from './codec.js';
import { LazyRequest } from './lazy-request.js';
import type { SseFrame } from '../sse/frame.js';

/** A request body after the shallow check, original bytes kept for forwarding. */
export interface ParsedRequest {
  /** The client's bytes (a large body in pooled memory, released when the request is over: body-bytes.ts). */
  readonly raw: BodyBytes;
  /**
   * What routing and the format's own rules read (top-level fields, metadata, message roles): exact, except
   * that long strings three or more levels down may be UNDECODED (json-skeleton.ts). Cheap at any size.
   * Reading `json` may fill those strings in, making `head` the whole body: read it for nothing deeper.
   */
  readonly head: Readonly<Record<string, unknown>>;
  /**
   * The whole body, made on first read (translation reads it; pass-through never does): json-request.ts. A getter
   * on LazyRequest's prototype, so a spread of a ParsedRequest drops it: use withRequestFields.
   */
  readonly json: Record<string, unknown>;
  readonly model: string;
  readonly stream: boolean;
  /** The conversation this request continues, for affinity (Anthropic `metadata.user_id`, OpenAI `prompt_cache_key`); null when none. */
  readonly conversation: string | null;
  /** Images the request asks for (the image endpoints' `n`): a billable unit beside tokens; none on the chat APIs. */
  readonly images?: number | undefined;
  /**
   * The content type of `raw`, sent upstream with it: a multipart form's own (its boundary included); JSON when
   * left out.
   */
  readonly contentType?: string | undefined;
  /**
   * A call priced flat rather than by tokens (pricing.calls), on an endpoint about
   * no one model (`model` is ''); the usage record names it in place of a model.
   */
  readonly operation?: string | undefined;
  /** A multipart form's file parts, which the input estimate budgets for (core/money/media-estimate.ts). */
  readonly formFiles?: number | undefined;
  /**
   * How many answers the upstream generates, each up to the output cap, where the body's `n` does not say it (legacy
   * completions: best_of candidates for each prompt): the reservation multiplies the cap by it. Absent: `n`, else 1.
   */
  readonly outputs?: number | undefined;
}


/** `request` with some routing fields replaced; the whole body stays unparsed until read (a spread would lose `json`). */
export function withRequestFields(request: ParsedRequest, fields: Partial<Pick<ParsedRequest, 'stream' | 'conversation'>>): ParsedRequest {
  return new LazyRequest(
    request.raw,
    request.head,
    { whole: () => request.json },
    request.model,
    fields.stream ?? request.stream,
    fields.conversation === undefined ? request.conversation : fields.conversation,
    request.images,
    request.contentType,
    request.operation,
    request.formFiles,
    request.outputs,
  );
}

/** What an error's answer may name besides the error: the request (the Volcengine envelope carries both). */
export interface ErrorAbout {
  readonly requestId: string;
  /** The request's path, without its query. */
  readonly path?: string | undefined;
}

export interface RenderedError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What the meter learns from one stream frame. */
export interface FrameUsage {
  /** The usage known after this frame (merged with what earlier frames said), or null when it said nothing. */
  readonly usage: Usage | null;
  /** The frame carries nothing but usage (the include_usage chunk) and may be dropped. */
  readonly usageOnly: boolean;
  /** The usage is the stream's last word (Chat's usage chunk, Anthropic's message_delta, Responses' terminal event). */
  readonly final?: true;
}

export interface ClientFormat {
  readonly name: ApiFormat;
  /**
   * Whether a request of this route may be translated for a channel of another format (chat, messages,
   * responses); false for routes with no counterpart elsewhere (count_tokens, /responses/compact).
   */
  readonly translatable: boolean;
  /**
   * Of the attempts routing found for `request`, those it may go to (a route's own rule of its channels: how many
   * images one takes); throws the 400 naming the rule when none may. Absent: every attempt.
   */
  narrowAttempts?(request: ParsedRequest, attempts: readonly Attempt[], config: ResolvedConfig): readonly Attempt[];
  /**
   * The body fields whose upstream honours them as the output cap (output-cap.ts): the largest named is reserved,
   * and is the cap a translated request carries. Empty for an endpoint whose upstream honours none.
   */
  readonly outputCaps: readonly string[];
  /**
   * Throws a GatewayError naming the offending field. `contentType`: the request's header, for the endpoints
   * that read it (the JSON chat APIs take any, as the real ones do); `params`: the path's (`{action}`); `query`: the
   * request's query string with its `?`, for an API whose query says how to answer (Gemini's `alt=sse`).
   */
  decodeRequest(raw: BodyBytes, contentType?: string, params?: Readonly<Record<string, string>>, query?: string): ParsedRequest;
  /** `about`: the request, for formats whose error bodies name it (the others ignore it). */
  encodeError(err: GatewayError, about?: ErrorAbout): RenderedError;
  /** The in-band error frame written when a stream already began. */
  encodeStreamError(err: GatewayError): SseFrame;
  /** Whether an upstream frame of this format is its in-band error (passed through, but the request failed). */
  isErrorFrame(frame: SseFrame): boolean;
  /**
   * Makes a stream request ask the upstream for usage, where the format needs asking (OpenAI's
   * stream_options.include_usage): the body to send instead, or null when it already asks (or needs not).
   * A new body means the client did not ask for usage frames.
   */
  requestStreamUsage(request: ParsedRequest, body: BodyBytes): BodyBytes | null;
  /**
   * For an API whose path names the model (Gemini's `/v1beta/models/{model}:generateContent`): where a native call of
   * `request` goes, with the channel's name of the model in the path, and the query without what belongs to the
   * gateway (the caller's `?key=`). Absent: the route's path and the client's query.
   */
  nativeCall?(request: ParsedRequest, upstreamModel: string, query: string): UpstreamCall;
  /**
   * A translated whole answer's body as this route gives it, when the route frames its API's answer (Gemini's stream
   * asked for without `alt=sse`: a JSON array of the responses). Absent: the answer as the codec wrote it.
   */
  translatedAnswer?(body: Buffer): Buffer;
  /** Rules of this API for every upstream call (Responses: store false), applied to the bytes to send. */
  prepareUpstreamBody(request: ParsedRequest, body: BodyBytes): BodyBytes;
  decodeUsage(body: Buffer): Usage | null;
  /** `previous`: the usage known before this frame; formats that report usage in parts merge into it. */
  decodeFrameUsage(frame: SseFrame, previous: Usage | null): FrameUsage;
  /**
   * A stream's usage frame with the request's price beside its usage (`cost`, a decimal's digits as a JSON number:
   * usage-cost.ts), or null when this frame carries no usage that may take it. Absent: the API has no room for it.
   */
  encodeFrameCost?(frame: SseFrame, cost: string): SseFrame | null;
  /**
   * For a route whose callers speak more than one API (the model list): the format of this caller's, chosen from
   * its headers when the request arrives. Absent: this format for every caller.
   */
  forCaller?(path: string, headers: Readonly<Record<string, string | string[] | undefined>>): ClientFormat;
}
