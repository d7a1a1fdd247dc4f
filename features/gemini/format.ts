// The Gemini client format, one per method: generateContent, streamGenerateContent (SSE with `alt=sse`, else one
// JSON array) and countTokens. The model is in the path, so a native call's path is rebuilt with the channel's name
// for it, and its query is the gateway's own.

import type { ClientFormat, ParsedRequest } from '../../core/formats/format.js';
import type { UpstreamCall } from '../../core/formats/codec.js';
import { NO_OUTPUT_CAPS } from '../../core/formats/output-cap.js';
import { GEMINI_OUTPUT_CAPS } from './output-caps.js';
import { ScanMemory } from '../../core/formats/scan-memory.js';
import { GEMINI_API } from './api-name.js';
import { encodeError, encodeStreamError, isErrorFrame } from './errors.js';
import { createGeminiDecoder, type GeminiMethod } from './request.js';
import { decodeFrameUsage, decodeUsage, encodeFrameCost } from './usage.js';

/** The query parameter a caller's key may come in (the routes' auth takes it); never sent on. */
export const KEY_QUERY_PARAM = 'key';

/**
 * A native call: the channel's name of the model in the path, and a query of the gateway's own making (`alt=sse` for
 * a stream, else none). The caller's is never sent on: its `?key=` is the caller's key, and Google's system
 * parameters (`fields`, `$alt`, `callback`, ...) could strip the usage the request is billed from or reshape the body.
 */
function nativeCall(method: GeminiMethod): NonNullable<ClientFormat['nativeCall']> {
  return (request: ParsedRequest, upstreamModel: string): UpstreamCall => ({
    path: `/v1beta/models/${encodeURIComponent(upstreamModel)}:${method}`,
    query: request.stream ? SSE_QUERY : '',
  });
}

const SSE_QUERY = '?alt=sse';

export function createGeminiFormat(method: GeminiMethod, memory: ScanMemory = new ScanMemory()): ClientFormat {
  const counting = method === 'countTokens';
  return {
    name: GEMINI_API,
    // countTokens has no counterpart in the other APIs' requests: served by Gemini upstreams (and the mock) only.
    translatable: !counting,
    outputCaps: counting ? NO_OUTPUT_CAPS : GEMINI_OUTPUT_CAPS,
    decodeRequest: createGeminiDecoder(method, memory),
    nativeCall: nativeCall(method),
    encodeError,
    encodeStreamError,
    isErrorFrame,
    // Gemini reports usage on every answer and stream unasked.
    requestStreamUsage: () => null,
    prepareUpstreamBody: (_request, body) => body,
    decodeUsage,
    decodeFrameUsage,
    encodeFrameCost,
    // A stream asked for without alt=sse is one JSON array of the responses; translated, it is an array of one.
    ...(method === 'streamGenerateContent' ? { translatedAnswer: (body: Buffer): Buffer => Buffer.concat([Buffer.from('['), body, Buffer.from(']')]) } : {}),
  };
}
