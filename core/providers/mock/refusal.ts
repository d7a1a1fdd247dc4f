// The mock channel refuses what the real API would (as far as the gateway knows the format): it reads the body
// with its format's decoder, the one translation uses, and answers that decoder's 400 in the API's error shape,
// as a real upstream answers its own. What the IR cannot carry (a document block, a hosted tool) is still input
// the API takes: the mock answers it like any other.

import type { CoreWireFormat } from '../../formats/codecs.js';
import { GatewayError } from '../../errors.js';
import { encodeError as encodeAnthropicError } from '../../formats/anthropic-messages/errors.js';
import { codecFor } from '../../formats/codecs.js';
import { LazyRequest } from '../../formats/lazy-request.js';
import { encodeError as encodeOpenAIError } from '../../formats/openai-chat/errors.js';
import type { UpstreamRequest, UpstreamResponse } from '../provider.js';
import { renderedResponse } from './respond.js';

/** The 400 of the API `format` for `body`, or null when the mock answers it. */
export function refusalOf(request: UpstreamRequest, body: Record<string, unknown>, format: CoreWireFormat): UpstreamResponse | null {
  const model = typeof body['model'] === 'string' ? body['model'] : '';
  try {
    codecFor(format).decodeRequest(new LazyRequest(request.body, body, { whole: () => body }, model, request.stream, null));
    return null;
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'GW_ERR_TRANSLATION_UNSUPPORTED') return null;
    // Anything else thrown is a bug of the decoder, for the relay's 500 (and the tests) to find.
    if (!(err instanceof GatewayError)) throw err;
    return renderedResponse(format === 'anthropic-messages' ? encodeAnthropicError(err) : encodeOpenAIError(err));
  }
}
