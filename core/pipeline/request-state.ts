// The RequestContext of one request as a class: one fixed shape for every request, its body decoded when a
// plugin first reads it. (An object literal with getters is built through V8's slow path on every request
// and gives each request's context a shape of its own.)
//
// The body is read only after the head phase (auth, from the headers) admitted the request, and decoded on
// first read, so a caller without a valid key costs no more than its headers, and auth answers 401 before a bad
// body's 400, as the real APIs do. Decoded once; a bad body throws the same 400 on every read.

import { performance } from 'node:perf_hooks';
import type { HttpMethod } from '../endpoints/http-method.js';
import { bodyProblem } from '../endpoints/intake-names.js';
import { NO_PARAMS, type BodyFamily, type BodyReads, type EndpointMatch } from '../endpoints/registry.js';
import { GatewayError, toGatewayError } from '../errors.js';
import { BodyBytes } from '../formats/body-bytes.js';
import type { ClientFormat, ParsedRequest } from '../formats/format.js';
import type { AuthedKey } from '../keys/key-ring.js';
import type { BodySource } from './body-source.js';
import type { ClientAbort } from '../client-abort.js';
import type { HeaderValue, RequestContext } from './context.js';
import { SlotValues, type Slot } from '../slot.js';
import type { RequestTrace } from './tracing.js';

export class RequestState implements RequestContext {
  bodyOverride: BodyBytes | null = null;
  key: AuthedKey | null = null;
  channel: string | null = null;
  upstreamModel: string | null = null;
  framesSent = 0;
  bodyBytesSent = 0;
  upstreamWaitMs: number | null = null;
  bodyWaitMs = 0;
  responseHeaders: Readonly<Record<string, string>> | null = null;
  status = 0;
  error: GatewayError | null = null;
  firstByteAt: number | null = null;
  aborted = false;
  trace: RequestTrace | null = null;
  clientAddress = '';
  readonly method: HttpMethod | 'HEAD';
  readonly safe: boolean;
  readonly carriesBody: boolean;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly bodyFamily: BodyFamily | undefined;
  private decoded: ParsedRequest | null = null;
  /** Made when a step first sets one: most requests set none. */
  private slots: SlotValues | null = null;
  private failure: GatewayError | null = null;
  private body: BodyBytes | null;
  private readonly source: BodySource | null;
  /** The body fields its endpoint reads as names, checked once decoded (intake-names.ts). */
  private readonly reads: BodyReads | undefined;

  constructor(
    readonly id: string,
    readonly route: string,
    readonly query: string,
    readonly format: ClientFormat,
    readonly headers: Readonly<Record<string, HeaderValue>>,
    readonly abort: ClientAbort,
    readonly receivedAt: number,
    readonly startedAt: number,
    body: BodyBytes | BodySource,
    matched?: EndpointMatch,
    head = false,
  ) {
    this.method = head ? 'HEAD' : (matched?.endpoint.method ?? 'POST');
    this.safe = this.method === 'GET' || this.method === 'HEAD';
    this.carriesBody = this.method === 'POST' || this.method === 'PATCH';
    this.params = matched?.params ?? NO_PARAMS;
    this.bodyFamily = matched?.endpoint.body;
    this.path = matched?.path ?? route;
    this.body = body instanceof BodyBytes ? body : null;
    this.source = body instanceof BodyBytes ? null : body;
    this.reads = matched?.endpoint.reads;
  }

  /** Reads the body from its source, once; nothing to wait for when it is already here. */
  loadBody(): Promise<void> | undefined {
    if (this.body !== null || this.source === null) return undefined;
    const asked = performance.now();
    return this.source.read(this.abort).then((body) => {
      this.body = body;
      // The client's time, not the gateway's (x-gateway-overhead-ms leaves it out).
      this.bodyWaitMs = performance.now() - asked;
    });
  }

  /** Whether the whole body was read (a request refused from its headers, or whose body broke off, has none). */
  get bodyLoaded(): boolean {
    return this.body !== null;
  }

  /** The model the client asked for, when its body was read and decoded; null otherwise (for logs). */
  get modelIfKnown(): string | null {
    return this.decoded?.model ?? null;
  }

  /** Nothing reads the body once the request is answered: a pooled one goes back for the next request. */
  releaseBody(): void {
    this.body?.release();
    this.source?.release();
  }

  get<T>(slot: Slot<T>): T | undefined {
    return this.slots?.get(slot);
  }

  set<T>(slot: Slot<T>, value: T): void {
    (this.slots ??= new SlotValues()).set(slot, value);
  }

  get request(): ParsedRequest {
    if (this.decoded !== null) return this.decoded;
    if (this.failure !== null) throw this.failure;
    if (this.body === null) {
      // A head-phase plugin read the body, which is not there yet: a bug of that plugin, not of the request.
      throw new GatewayError('GW_ERR_INTERNAL', 'The gateway failed to handle the request.', {
        cause: new Error('ctx.request was read before the body (in a head hook)'),
      });
    }
    try {
      const contentType = this.headers['content-type'];
      const decoded = this.format.decodeRequest(this.body, typeof contentType === 'string' ? contentType : undefined, this.params, this.query);
      // Before anything reads them: no plugin, store or upstream ever sees a name the intake would refuse.
      const problem = bodyProblem(decoded.head, decoded.model, this.reads);
      if (problem !== null) throw problem;
      this.decoded = decoded;
      return decoded;
    } catch (err) {
      this.failure = toGatewayError(err);
      throw this.failure;
    }
  }

  get stream(): boolean {
    return this.request.stream;
  }
}
