// A translated stream: upstream frames -> IR events (the upstream dialect's decoder) -> client frames (the
// client format's encoder). Lazy like the pass-through stream: one upstream frame is read per step, so
// backpressure and the client's abort reach the upstream unchanged.

import type { GatewayError } from '../errors.js';
import type { ChatRequest } from '../ir/request.js';
import type { EncodedFrame, StreamEncoder } from '../ir/stream.js';
import type { SseFrame } from '../sse/frame.js';
import { encodeFrame } from '../sse/frame-writer.js';
import type { WireCodec } from './codec.js';

export interface TranslatedStreamHooks {
  /** The upstream reported an error inside the stream; the client gets it in its format and the stream ends. */
  onUpstreamError(error: GatewayError): void;
  /**
   * The upstream stream broke off (or ended before its terminal event): the error to tell the client, which
   * the encoder writes in the client's format, continuing its own event numbering. Throws to give up
   * writing (the client is gone).
   */
  onBroken(err: unknown): GatewayError;
}

const COLON = 0x3a;

function* written(frames: readonly EncodedFrame[]): Generator<SseFrame> {
  for (const frame of frames) yield encodeFrame(frame.data, frame.event);
}

export async function* translateStream(
  frames: AsyncIterable<SseFrame>,
  upstream: WireCodec,
  client: WireCodec,
  request: ChatRequest,
  hooks: TranslatedStreamHooks,
): AsyncGenerator<SseFrame> {
  const decoder = upstream.createStreamDecoder();
  const encoder: StreamEncoder = client.createStreamEncoder(request);
  try {
    for await (const frame of frames) {
      if (frame.data === null) {
        // A keepalive comment is valid in every client's stream: passing it on keeps idle timers of clients and
        // proxies from firing while the upstream thinks.
        if (frame.raw[0] === COLON) yield frame;
        continue;
      }
      for (const event of decoder.push(frame.event, frame.data)) {
        yield* written(encoder.push(event));
        if (event.type === 'error') {
          hooks.onUpstreamError(event.error);
          return;
        }
      }
    }
    const rest = decoder.end();
    for (const event of rest) yield* written(encoder.push(event));
  } catch (err) {
    // Decoding and reading failures only: a failed write to the client ends this generator from outside.
    yield* written(encoder.push({ type: 'error', error: hooks.onBroken(err) }));
    return;
  }
  yield* written(encoder.end());
}
