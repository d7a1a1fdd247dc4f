// The typed per-request context every plugin reads and writes; no untyped bags.

import type { HttpMethod } from '../endpoints/http-method.js';
import type { BodyFamily } from '../endpoints/registry.js';
import type { GatewayError } from '../errors.js';
import type { BodyBytes } from '../formats/body-bytes.js';
import type { ClientFormat, ParsedRequest } from '../formats/format.js';
import type { AuthedKey } from '../keys/key-ring.js';
import type { ClientAbort } from '../client-abort.js';
import type { Slot } from '../slot.js';
import type { RequestTrace } from './tracing.js';

export type HeaderValue = string | string[] | undefined;

/** One request's state from arrival to finish. Plugins keep private per-request state in a WeakMap of it. */
export interface RequestContext {
  readonly id: string;
  /**
   * The route: its key (endpoints/registry.ts), the path of a POST endpoint (`/v1/chat/completions`), else the
   * method and path pattern (`GET /v1/models/{id}`); bounded, so it may label metrics.
   */
  readonly route: string;
  /** The client's method, path and path parameters (`{id}` of a pattern); POST, `route` and none when absent. */
  readonly method?: HttpMethod | 'HEAD';
  readonly path?: string;
  readonly params?: Readonly<Record<string, string>>;
  /**
   * Its method is GET or HEAD, which change nothing (RFC 9110's safe methods): no CSRF token, no body to send. Read
   * this, not the method: what a route does is decided by the router, once.
   */
  readonly safe: boolean;
  /** Its method carries a body (POST, PATCH): one to forward, or to check as JSON. */
  readonly carriesBody: boolean;
  /** Its endpoint's body family (endpoints/registry.ts): `open` serves callers with no credential; none, an API's. */
  readonly bodyFamily?: BodyFamily | undefined;
  /** The request's query string with its `?` (`?beta=true`), or ''; forwarded to the upstream unchanged. */
  readonly query: string;
  readonly format: ClientFormat;
  readonly headers: Readonly<Record<string, HeaderValue>>;
  /** The peer's address, as the socket has it ('' when unknown). */
  readonly clientAddress: string;
  /** The client's disconnect (`aborted`, `onAbort`, and an AbortSignal made on first use); passed to the upstream request. */
  readonly abort: ClientAbort;
  /** Epoch ms at arrival (for records). */
  readonly receivedAt: number;
  /** performance.now() at arrival (for durations). */
  readonly startedAt: number;
  /** Decoded on first read; a bad body throws its 400 GatewayError from here (see request-state.ts). */
  readonly request: ParsedRequest;
  /**
   * The bytes to send upstream when a plugin changed the body, or null for the client's own bytes. Plugins
   * edit with setBodyField (json-edit.ts), so untouched parts stay byte for byte; `request.json` is the
   * client's body as parsed and is not changed.
   */
  bodyOverride: BodyBytes | null;
  key: AuthedKey | null;
  /** The channel that answered (or was last tried), and the model name sent to it. */
  channel: string | null;
  upstreamModel: string | null;
  /**
   * Headers a plugin adds to the answer, whatever it is (success, stream head or error): the rate limits' remaining
   * counts. Null: none (no object per request).
   */
  responseHeaders: Readonly<Record<string, string>> | null;
  /** The HTTP status the client received (200 for a stream that later broke). */
  status: number;
  error: GatewayError | null;
  /** performance.now() when the first body byte was written to the client. */
  firstByteAt: number | null;
  /** Stream frames written to the client (what a cut stream's output is estimated from: money/estimate.ts). */
  framesSent: number;
  /** The bytes of a whole (non-stream) answer's body sent to the client (what its output is estimated from when it reported no usage). */
  bodyBytesSent: number;
  /**
   * Milliseconds spent waiting on upstreams, every attempt's from its call until its answer was in hand (a whole
   * answer read, a stream's headers) or it failed; null while none was called. The gateway's own time is the rest
   * (x-gateway-overhead-ms).
   */
  upstreamWaitMs: number | null;
  /** Milliseconds spent waiting for the client's body to arrive once it was asked for (0 when it was already here). */
  readonly bodyWaitMs: number;
  readonly stream: boolean;
  aborted: boolean;
  /** Its trace (tracing.ts) when the gateway traces requests; null otherwise, and then nothing of tracing runs. */
  trace: RequestTrace | null;
  /** What a step of the chain put in `slot` (slot.ts) for the later ones; undefined when none did. */
  get<T>(slot: Slot<T>): T | undefined;
  /** Hands `value` to the chain's later steps and the route's handler. */
  set<T>(slot: Slot<T>, value: T): void;
}

/** The request body to send upstream: the original bytes unless a plugin changed them. */
export function upstreamBody(ctx: RequestContext): BodyBytes {
  return ctx.bodyOverride ?? ctx.request.raw;
}
