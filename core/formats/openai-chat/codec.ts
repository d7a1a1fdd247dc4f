// The OpenAI Chat Completions translation codec: a chat client answered by another dialect, and a chat upstream
// serving clients of other formats.

import type { UpstreamCall, WireCodec } from '../codec.js';
import { decodeError } from './ir-error.js';
import { decodeRequest, encodeRequest } from './ir-request.js';
import { decodeResponse, encodeResponse } from './ir-response.js';
import { createStreamDecoder } from './ir-stream-decoder.js';
import { createStreamEncoder } from './ir-stream-encoder.js';

const CALL: UpstreamCall = { path: '/v1/chat/completions', query: '' };

export const openaiChatCodec: WireCodec = {
  format: 'openai-chat',
  upstreamCall: () => CALL,
  decodeRequest,
  encodeResponse,
  createStreamEncoder,
  encodeRequest,
  decodeResponse,
  createStreamDecoder,
  decodeError,
};
