// The RequestContext of one request as a class: one fixed shape for every request, its body decoded when a
// plugin first reads it. (An object literal with getters is built through V8's slow path on every request
// and gives each request's context a shape of its own.)
//
// The body is decoded on first read, so auth (headers only) answers 401 before a bad body's 400, as the real
// APIs do. Decoded once; a bad body throws the same 400 on every read.

import { toGatewayError, type GatewayError } from '../errors.js';
import type { BodyBytes } from '../formats/body-bytes.js';
import type { ClientFormat, ParsedRequest } from '../formats/format.js';
import type { Usage } from '../ir/usage.js';
import type { AuthedKey } from '../keys/key-ring.js';
import type { ClientAbort } from './client-abort.js';
import type { HeaderValue, RequestContext } from './context.js';

export class RequestState implements RequestContext {
  bodyOverride: BodyBytes | null = null;
  key: AuthedKey | null = null;
  channel: string | null = null;
  upstreamModel: string | null = null;
  usage: Usage | null = null;
  status = 0;
  error: GatewayError | null = null;
  firstByteAt: number | null = null;
  aborted = false;
  private decoded: ParsedRequest | null = null;
  private failure: GatewayError | null = null;

  constructor(
    readonly id: string,
    readonly route: string,
    readonly query: string,
    readonly format: ClientFormat,
    readonly headers: Readonly<Record<string, HeaderValue>>,
    readonly abort: ClientAbort,
    readonly receivedAt: number,
    readonly startedAt: number,
    private readonly body: BodyBytes,
  ) {}

  get request(): ParsedRequest {
    if (this.decoded !== null) return this.decoded;
    if (this.failure !== null) throw this.failure;
    try {
      this.decoded = this.format.decodeRequest(this.body);
      return this.decoded;
    } catch (err) {
      this.failure = toGatewayError(err);
      throw this.failure;
    }
  }

  get stream(): boolean {
    return this.request.stream;
  }
}
