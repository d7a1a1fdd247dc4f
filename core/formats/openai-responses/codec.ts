// The OpenAI Responses codec: Codex and the SDKs' /v1/responses as a client format, and a Responses upstream
// (OpenAI, or an OpenAI-compatible server) as a dialect.

import type { UpstreamCall, WireCodec } from '../codec.js';
// A non-2xx body is OpenAI's error object, as for Chat.
import { decodeError } from '../openai-chat/ir-error.js';
import { decodeRequest } from './ir-request.js';
import { encodeRequest } from './ir-request-encode.js';
import { decodeResponse, encodeResponse } from './ir-response.js';
import { createStreamDecoder } from './ir-stream-decoder.js';
import { createStreamEncoder } from './ir-stream-encoder.js';

const CALL: UpstreamCall = { path: '/v1/responses', query: '' };

export const openaiResponsesCodec: WireCodec = {
  format: 'openai-responses',
  upstreamCall: () => CALL,
  decodeRequest,
  encodeResponse,
  createStreamEncoder,
  encodeRequest,
  decodeResponse,
  createStreamDecoder,
  decodeError,
};
