// The contract of a client format: how requests are read and how answers and errors are written back.

import type { GatewayError } from '../errors.js';
import type { Usage } from '../ir/usage.js';
import type { SseFrame } from '../sse/frame.js';

/** A request body after the shallow check: parsed once, original bytes kept for forwarding. */
export interface ParsedRequest {
  readonly raw: Buffer;
  readonly json: Record<string, unknown>;
  readonly model: string;
  readonly stream: boolean;
}

export interface RenderedError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What the meter learns from one stream frame. */
export interface FrameUsage {
  readonly usage: Usage | null;
  /** The frame carries nothing but usage (the include_usage chunk) and may be dropped. */
  readonly usageOnly: boolean;
}

export interface ClientFormat {
  readonly name: string;
  /** Throws a GatewayError naming the offending field. */
  decodeRequest(raw: Buffer): ParsedRequest;
  encodeError(err: GatewayError): RenderedError;
  /** The in-band error frame written when a stream already began. */
  encodeStreamError(err: GatewayError): SseFrame;
  decodeUsage(body: Buffer): Usage | null;
  decodeFrameUsage(frame: SseFrame): FrameUsage;
}
