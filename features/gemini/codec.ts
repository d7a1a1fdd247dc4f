// The Gemini API's translation codec: a Gemini client (Gemini CLI, @google/genai) answered by another dialect, and a
// Gemini upstream serving clients of other formats.

import type { UpstreamCall, WireCodec } from '../../core/formats/codec.js';
import { GEMINI_API } from './api-name.js';
import { decodeError } from './ir-error.js';
import { decodeRequest } from './ir-request-decode.js';
import { encodeRequest } from './ir-request-encode.js';
import { decodeResponse, encodeResponse } from './ir-response.js';
import { createStreamDecoder } from './ir-stream-decoder.js';
import { createStreamEncoder } from './ir-stream-encoder.js';

/** Google's path names the model and the method; streams are asked for as SSE (without alt=sse: one JSON array). */
function upstreamCall(model: string, stream: boolean): UpstreamCall {
  const path = `/v1beta/models/${encodeURIComponent(model)}`;
  return stream ? { path: `${path}:streamGenerateContent`, query: '?alt=sse' } : { path: `${path}:generateContent`, query: '' };
}

export const geminiCodec: WireCodec = {
  format: GEMINI_API,
  upstreamCall,
  decodeRequest,
  encodeResponse,
  createStreamEncoder,
  encodeRequest,
  decodeResponse,
  createStreamDecoder,
  decodeError,
};
