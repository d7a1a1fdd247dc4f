// The Gemini client format, one per method: generateContent, streamGenerateContent (SSE with `alt=sse`, else one
// JSON array) and countTokens. The model is in the path, so a native call's path is rebuilt with the channel's name
// for it, and the caller's `?key=` stays behind.

import type { ClientFormat, ParsedRequest } from '../../core/formats/format.js';
import type { UpstreamCall } from '../../core/formats/codec.js';
import { GEMINI_OUTPUT_CAPS, NO_OUTPUT_CAPS } from '../../core/formats/output-cap.js';
import { ScanMemory } from '../../core/formats/scan-memory.js';
import { GEMINI_API } from './api-name.js';
import { encodeError, encodeStreamError, isErrorFrame } from './errors.js';
import { createGeminiDecoder, type GeminiMethod } from './request.js';
import { decodeFrameUsage, decodeUsage, encodeFrameCost } from './usage.js';

/** The query parameter a caller's key may come in (the routes' auth takes it); never sent on. */
export const KEY_QUERY_PARAM = 'key';

function nativeCall(method: GeminiMethod): NonNullable<ClientFormat['nativeCall']> {
  return (_request: ParsedRequest, upstreamModel: string, query: string): UpstreamCall => ({
    path: `/v1beta/models/${encodeURIComponent(upstreamModel)}:${method}`,
    query: withoutKey(query),
  });
}

/** The query without the caller's key (the channel's goes in a header); the rest (`alt=sse`) as the caller sent it. */
export function withoutKey(query: string): string {
  // Most queries are `?alt=sse`: one that holds neither the name nor an escape cannot name the key.
  if (!query.includes(KEY_QUERY_PARAM) && !query.includes('%')) return query;
  const kept = query
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && nameOf(pair) !== KEY_QUERY_PARAM);
  return kept.length === 0 ? '' : `?${kept.join('&')}`;
}

/** A query pair's name as URLSearchParams reads it (`+` a space, percent-decoded; a bad escape kept as written). */
function nameOf(pair: string): string {
  const name = (pair.split('=', 1)[0] as string).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

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
    ...(method === 'streamGenerateContent' ? { translatedAnswer: (body: Buffer): Buffer => Buffer.concat([OPEN, body, CLOSE]) } : {}),
  };
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
