// Responses errors: OpenAI's JSON shape before a stream began; after, an `error` event and a terminal
// `response.failed` (Codex waits for a terminal event and reads the failure's code).

import { encodeError as encodeOpenAIError } from '../openai-chat/errors.js';
import type { GatewayError } from '../../errors.js';
import type { SseFrame } from '../../sse/frame.js';
import type { RenderedError } from '../format.js';

export function encodeError(err: GatewayError): RenderedError {
  return encodeOpenAIError(err);
}

/** Codex treats these codes as fatal or retryable by name; the gateway's failures map onto the closest. */
function codeOf(err: GatewayError): string {
  if (err.kind === 'rate_limit') return 'rate_limit_exceeded';
  return err.status >= 500 ? 'server_error' : (err.wireCode ?? 'invalid_request');
}

export function encodeStreamError(err: GatewayError): SseFrame {
  const code = codeOf(err);
  const error = { type: 'error', code, message: err.message, param: err.param };
  const failed = {
    type: 'response.failed',
    response: { object: 'response', status: 'failed', error: { code, message: err.message }, output: [], usage: null },
  };
  const text = `event: error\ndata: ${JSON.stringify(error)}\n\nevent: response.failed\ndata: ${JSON.stringify(failed)}\n\n`;
  return { raw: Buffer.from(text, 'utf8'), event: 'response.failed', data: JSON.stringify(failed) };
}

/** A Responses stream fails with an `error` event, or ends with `response.failed`. */
export function isErrorFrame(frame: SseFrame): boolean {
  return frame.event === 'error' || frame.event === 'response.failed';
}
