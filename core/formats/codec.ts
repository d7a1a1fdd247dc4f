// One wire format's translation codec: the same dialect is a client format on one side of the gateway and an
// upstream dialect on the other, so each format has one codec that reads and writes the IR in both roles.
// N formats need N codecs, never a translator per pair. Core's three are in codecs.ts; a feature declares its own
// on its wire (endpoints/registry.ts, WireDeclaration.codec).

import type { WireFormat } from '../config/resolved.js';
import type { GatewayError } from '../errors.js';
import type { ChatRequest } from '../ir/request.js';
import type { ChatResponse } from '../ir/response.js';
import type { StreamDecoder, StreamEncoder } from '../ir/stream.js';
import type { ParsedRequest } from './format.js';

export interface UpstreamCall {
  readonly path: string;
  readonly query: string;
}

export interface WireCodec {
  readonly format: WireFormat;
  /**
   * Where a translated request goes below a channel's base URL: the path (`/v1/chat/completions`; Gemini's names the
   * model and the method) and the query with its `?`, or ''.
   */
  upstreamCall(model: string, stream: boolean): UpstreamCall;

  // The client side: a request in this format, answered from another dialect.
  /** Throws GW_ERR_TRANSLATION_UNSUPPORTED naming what has no counterpart in the IR (unknown tool types, ...). */
  decodeRequest(request: ParsedRequest): ChatRequest;
  /** The body of a whole answer; `request`: what the client asked (its tools, to name calls the way it declared them). */
  encodeResponse(response: ChatResponse, request: ChatRequest): Buffer;
  createStreamEncoder(request: ChatRequest): StreamEncoder;

  // The upstream side: a request in the IR sent in this dialect.
  /** `model`: the upstream's model name. Throws GW_ERR_TRANSLATION_UNSUPPORTED for content this dialect cannot carry. */
  encodeRequest(request: ChatRequest, model: string): Buffer;
  /** A 2xx body. Throws a GatewayError (upstream error) when it is not an answer of this dialect. */
  decodeResponse(body: Buffer): ChatResponse;
  createStreamDecoder(): StreamDecoder;
  /** A non-2xx answer of this dialect, as the error to give the client. */
  decodeError(status: number, body: Buffer): GatewayError;
}
