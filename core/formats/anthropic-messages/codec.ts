// The Anthropic Messages translation codec: an Anthropic client answered by another dialect, and another
// format's request sent to an Anthropic upstream.

import type { UpstreamCall, WireCodec } from '../codec.js';
import { decodeError } from './ir-error.js';
import { decodeRequest, encodeRequest } from './ir-request.js';
import { decodeResponse, encodeResponse } from './ir-response.js';
import { createStreamDecoder } from './ir-stream-decoder.js';
import { createStreamEncoder } from './ir-stream-encoder.js';

const CALL: UpstreamCall = { path: '/v1/messages', query: '' };

export const anthropicMessagesCodec: WireCodec = {
  format: 'anthropic-messages',
  upstreamCall: () => CALL,
  decodeRequest,
  encodeResponse,
  createStreamEncoder,
  encodeRequest,
  decodeResponse,
  createStreamDecoder,
  decodeError,
};
