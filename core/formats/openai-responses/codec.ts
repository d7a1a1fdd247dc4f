// The OpenAI Responses codec: Codex and the SDKs' /v1/responses as a client format, and a Responses upstream
// (OpenAI, or an OpenAI-compatible server) as a dialect.

import type { WireCodec } from '../codec.js';
import { decodeError } from './ir-error.js';
import { decodeRequest } from './ir-request.js';
import { encodeRequest } from './ir-request-encode.js';
import { decodeResponse, encodeResponse } from './ir-response.js';
import { createStreamDecoder } from './ir-stream-decoder.js';
import { createStreamEncoder } from './ir-stream-encoder.js';

export const openaiResponsesCodec: WireCodec = {
  format: 'openai-responses',
  path: '/v1/responses',
  decodeRequest,
  encodeResponse,
  createStreamEncoder,
  encodeRequest,
  decodeResponse,
  createStreamDecoder,
  decodeError,
};
