// The request path's hooks for tracing: core says where a request, an upstream attempt and a store write on the
// path begin and end; a feature (features/telemetry) makes the spans. Off, a gateway has no tracer and a request's
// `trace` is null: what tracing costs it then is that null check, no span, context or header object.

import type { ResolvedChannel } from '../config/resolved.js';
import { slot, type Slot } from '../slot.js';
import type { HeaderValue, RequestContext } from './context.js';

/** Makes each request's trace; one per config load, closed (its spans flushed) when the load retires. */
export interface RequestTracer {
  /** A request arrived: its trace, continuing the client's `traceparent` when it sent a valid one. */
  begin(ctx: RequestContext): RequestTrace;
  /** Sends what was ended so far. */
  flush(): Promise<void>;
  /** The load retired: what was ended is sent (within the export's timeout), then nothing more. */
  close(): Promise<void>;
}

/** One request's span and its children. */
export interface RequestTrace {
  /** An upstream attempt on `channel` begins (its span a child of the request's). */
  attempt(channel: ResolvedChannel, upstreamModel: string): AttemptTrace;
  /** A store write the request waits for begins (a balance hold); `operation` names it. */
  storeWrite(operation: string): StoreWriteTrace;
  /**
   * The request is over, its finish hooks run (the usage, the charge and the status are known): its span ends,
   * and any attempt still open with it. `model`: what the client asked for, when its body was read.
   */
  end(ctx: RequestContext, model: string | null): void;
}

export interface AttemptTrace {
  /** The W3C `traceparent` of this attempt's span, for the upstream call's headers. */
  readonly traceparent: string;
  /** The upstream answered with `status` (whatever the relay makes of it). */
  answered(status: number): void;
  /** The attempt failed: `reason` as the usage record's attempts say it (connect, timeout, status, ...). */
  failed(reason: string): void;
  /** The upstream's part is over (its answer in hand, or failed); once. */
  end(): void;
}

export interface StoreWriteTrace {
  /** The write is done; `error`: the code it failed with. */
  end(error: string | null): void;
}

/** Where the tracing feature puts the load's tracer: null when tracing is off (no `telemetry:` in gateway.yaml). */
export const REQUEST_TRACER: Slot<RequestTracer | null> = slot('request tracer');

/**
 * The client's headers for an upstream call with the attempt's `traceparent` in place of the client's; the same
 * object when the request is not traced.
 */
export function withTraceparent(headers: Readonly<Record<string, HeaderValue>>, attempt: AttemptTrace | null): Readonly<Record<string, HeaderValue>> {
  return attempt === null ? headers : Object.assign({}, headers, { traceparent: attempt.traceparent });
}
