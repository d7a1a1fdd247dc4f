// A translated stream: upstream frames -> IR events (the upstream dialect's decoder) -> client frames (the
// client format's encoder). A FrameTransform (sse/frame-batches.ts): synchronous per upstream read, so it
// stays lazy like the pass-through stream and backpressure and the client's abort reach the upstream unchanged.

import type { GatewayError } from '../errors.js';
import type { ChatRequest } from '../ir/request.js';
import type { EncodedFrame, StreamEncoder, StreamDecoder } from '../ir/stream.js';
import type { SseFrame } from '../sse/frame.js';
import type { FrameTransform } from '../sse/frame-batches.js';
import { encodeFrames } from '../sse/frame-writer.js';
import type { WireCodec } from './codec.js';

export interface TranslatedStreamHooks {
  /**
   * The upstream reported an error inside the stream: returns the error to tell the client (its message scrubbed of
   * keys), which gets it in its format; the stream ends.
   */
  onUpstreamError(error: GatewayError): GatewayError;
  /**
   * The upstream stream broke off (or ended before its terminal event): the error to tell the client, which
   * the encoder writes in the client's format, continuing its own event numbering. Throws to give up
   * writing (the client is gone).
   */
  onBroken(err: unknown): GatewayError;
}

const COLON = 0x3a;

export class StreamTranslation implements FrameTransform {
  done = false;
  private readonly decoder: StreamDecoder;
  private readonly encoder: StreamEncoder;
  /** The frames of a push that threw halfway: what was translated before the failure still goes out. */
  private partial: SseFrame[] | null = null;
  /** Encoded since the last frame was put in `partial`: written together into one buffer (encodeFrames). */
  private pending: EncodedFrame[] = [];

  constructor(
    upstream: WireCodec,
    client: WireCodec,
    request: ChatRequest,
    private readonly hooks: TranslatedStreamHooks,
  ) {
    this.decoder = upstream.createStreamDecoder();
    this.encoder = client.createStreamEncoder(request);
  }

  push(frames: readonly SseFrame[]): readonly SseFrame[] {
    const out: SseFrame[] = [];
    this.partial = out;
    for (const frame of frames) {
      if (frame.data === null) {
        // A keepalive comment is valid in every client's stream: passing it on keeps idle timers of clients and
        // proxies from firing while the upstream thinks.
        if (frame.raw[0] === COLON) {
          this.flush(out);
          out.push(frame);
        }
        continue;
      }
      for (const event of this.decoder.push(frame.event, frame.data)) {
        if (event.type === 'error') {
          for (const encoded of this.encoder.push({ type: 'error', error: this.hooks.onUpstreamError(event.error) })) this.pending.push(encoded);
          this.done = true;
          break;
        }
        // A loop, not push(...frames): a spread call per event costs more than the one or two frames it moves.
        for (const encoded of this.encoder.push(event)) this.pending.push(encoded);
      }
      if (this.done) break;
    }
    this.flush(out);
    this.partial = null;
    return out;
  }

  end(): readonly SseFrame[] {
    const out: SseFrame[] = [];
    this.partial = out;
    for (const event of this.decoder.end()) this.pending.push(...this.encoder.push(event));
    this.pending.push(...this.encoder.end());
    this.flush(out);
    this.partial = null;
    return out;
  }

  /** Decoding and reading failures only: a failed write to the client ends the stream from outside. */
  fail(err: unknown): readonly SseFrame[] {
    const out = this.partial ?? [];
    this.partial = null;
    // Only a push or end that threw leaves frames pending: they were translated before the failure.
    this.pending.push(...this.encoder.push({ type: 'error', error: this.hooks.onBroken(err) }));
    this.flush(out);
    return out;
  }

  private flush(out: SseFrame[]): void {
    if (this.pending.length === 0) return;
    out.push(...encodeFrames(this.pending));
    this.pending = [];
  }
}
