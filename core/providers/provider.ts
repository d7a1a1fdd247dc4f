// The contract of an upstream dialect: send one request, hand back status, headers and a lazy body.

import type { Chunks } from '../sse/pulled-body.js';
import type { ResolvedChannel } from '../config/resolved.js';
import type { HttpMethod } from '../endpoints/http-method.js';
import type { BodyBytes } from '../formats/body-bytes.js';
import type { ClientAbort } from '../client-abort.js';

export interface UpstreamRequest {
  readonly channel: ResolvedChannel;
  /** The upstream API key to use (rotated by the router); empty for keyless channels. */
  readonly key: string;
  /** The endpoint's method (POST when absent); a GET, HEAD or DELETE sends no body. */
  readonly method?: HttpMethod | 'HEAD' | undefined;
  /** API path below the channel's base URL, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** The client's query string with its `?`, or ''. */
  readonly query: string;
  /** The client's request headers; each dialect forwards the ones its API defines (never the client's key). */
  readonly clientHeaders: Readonly<Record<string, string | string[] | undefined>>;
  /** The body's content type (the endpoint's, a multipart form's boundary included); JSON when left out. */
  readonly contentType?: string | undefined;
  /** Sent as `forUpstream()` gives it (a large one as fresh copies of its pooled memory). */
  readonly body: BodyBytes;
  readonly stream: boolean;
  /** The client's disconnect: aborts the upstream request. */
  readonly abort: ClientAbort;
}

export interface UpstreamResponse {
  readonly status: number;
  /** Lower-case names, one value each. */
  readonly headers: Readonly<Record<string, string>>;
  /** Read lazily, through the one reading protocol (sse/pulled-body.ts); an upstream that stalls or breaks makes take() throw. */
  readonly body: Chunks;
  /** Drops the body unread, freeing the connection (used before a failover). */
  discard(): Promise<void>;
}

/** `redirect`: the upstream answered 3xx (upstream-redirect.ts), refused like a failed connection. */
export type UpstreamFailureReason = 'connect' | 'timeout' | 'protocol' | 'redirect';

/** A failure before any response arrived (or a redirect, refused): nothing reached the client, so another channel may be tried. */
export class UpstreamFailure extends Error {
  constructor(
    readonly reason: UpstreamFailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UpstreamFailure';
  }
}

export interface Provider {
  send(request: UpstreamRequest): Promise<UpstreamResponse>;
  /** Closes connections once the requests in flight are done. */
  close(): Promise<void>;
  /**
   * The upstream's model ids (its GET /v1/models), for dialects whose API lists them; rejects with an Error
   * whose message is safe to log. `signal` aborts it.
   */
  listModels?(channel: ResolvedChannel, key: string, signal: AbortSignal): Promise<readonly string[]>;
}

/** Where the mock channel keeps the images it hands out as URLs (mock/image-files.ts). */
export interface MockFiles {
  add(png: Buffer): string;
}

/**
 * What the `mock` channel answers on a route (a route's `mock`, endpoints/registry.ts): `files` keeps the images it
 * hands out as URLs.
 */
export type MockAnswer = (request: UpstreamRequest, files: MockFiles) => Promise<UpstreamResponse>;
