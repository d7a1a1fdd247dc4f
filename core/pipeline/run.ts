// Runs one request through its chain: head phase, body, request phase, relay, response, frames, finish (always,
// exactly once).

import { performance } from 'node:perf_hooks';
import { GatewayError, toGatewayError } from '../errors.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { SseFrame } from '../sse/frame.js';
import type { FrameSource } from '../sse/frame-batches.js';
import { arrival, pulledBody } from '../sse/pulled-body.js';
import type { Chain } from './chain.js';
import type { RequestContext } from './context.js';
import type { RelayResult } from './plugin.js';
import type { RequestState } from './request-state.js';
import type { ResponseSink } from './sink.js';

export async function runChain(
  chain: Chain,
  ctx: RequestState,
  sink: ResponseSink,
  metrics: GatewayMetrics,
): Promise<void> {
  try {
    for (const plugin of chain.head) {
      const pending = plugin.head?.(ctx);
      if (pending !== undefined) await pending;
    }
    const body = ctx.loadBody();
    if (body !== undefined) await body;
    for (const plugin of chain.request) {
      // Awaited only when the hook returned a promise: a synchronous hook costs no microtask turn.
      const pending = plugin.request?.(ctx);
      if (pending !== undefined) await pending;
    }
    const result = await chain.relay.relay(ctx);
    for (const plugin of chain.response) plugin.response?.(ctx, result);
    ctx.status = result.status;
    if (result.kind === 'body') {
      const now = performance.now();
      ctx.firstByteAt = now;
      ctx.bodyBytesSent = result.body.length;
      sink.send(result.status, withAdded(result.headers, ctx), result.body, overheadOf(ctx, chain, now));
    } else if (result.kind === 'stream') {
      await relayStream(chain, ctx, sink, result, metrics);
    } else {
      await relayBytes(chain, ctx, sink, result);
    }
  } catch (err) {
    answerError(chain, ctx, sink, err);
  } finally {
    for (const plugin of chain.finish) {
      try {
        plugin.finish?.(ctx);
      } catch {
        // finish hooks must not throw; one that does must not keep the others from running.
      }
    }
  }
}

async function relayStream(
  chain: Chain,
  ctx: RequestContext,
  sink: ResponseSink,
  result: Extract<RelayResult, { kind: 'stream' }>,
  metrics: GatewayMetrics,
): Promise<void> {
  sink.open(result.status, withAdded(result.headers, ctx), overheadOf(ctx, chain, performance.now()));
  const inFlight = metrics.streamsInFlight.enter(chain.route);
  const frames = result.frames;
  try {
    try {
      await polledRelay(chain, ctx, sink, frames);
    } catch (err) {
      // As `for await` does when its body throws: the upstream is not wanted any more.
      try {
        await frames.return();
      } catch {
        // The stream's own error is the one to report.
      }
      throw err;
    }
    sink.end();
  } finally {
    metrics.streamsInFlight.close(inFlight);
  }
}

/**
 * A raw body (a download), chunk by chunk as the upstream sends it; a full client buffer stops the reads (undici
 * pauses the upstream socket). Nothing in-band can say that it broke off: the client's connection is cut instead,
 * so it sees a truncated body, not a whole one.
 */
async function relayBytes(chain: Chain, ctx: RequestContext, sink: ResponseSink, result: Extract<RelayResult, { kind: 'bytes' }>): Promise<void> {
  sink.open(result.status, withAdded(result.headers, ctx), overheadOf(ctx, chain, performance.now()));
  // Read through the same PulledBody interface as a stream's frames (sse/pulled-body.ts), with a promise per
  // wait: nothing next to a file's chunk.
  const chunks = pulledBody(result.body);
  try {
    for (;;) {
      await arrival(chunks);
      const next = chunks.take();
      if (next.done === true) break;
      if (ctx.firstByteAt === null) ctx.firstByteAt = performance.now();
      const drained = sink.write(next.value);
      if (drained !== undefined) await drained;
    }
  } catch (err) {
    // Every ending is answered here: answerError would write an in-band error frame into the file.
    try {
      await chunks.return?.();
    } catch {
      // The body's own failure is the one to report.
    }
    if (ctx.abort.aborted && !ctx.abort.byShutdown) {
      ctx.aborted = true;
      ctx.error = new GatewayError('GW_ERR_CLIENT_CLOSED', 'the client closed the request');
    } else {
      if (ctx.abort.byShutdown) ctx.aborted = true;
      ctx.error = ctx.abort.byShutdown ? shutdownError() : toGatewayError(err);
    }
    if (sink.abort === undefined) sink.end();
    else sink.abort();
    return;
  }
  sink.end();
}

/**
 * The relay loop, driven by callbacks (FrameSource.poll): one promise for the whole stream, none per read. A
 * paced stream waits for each read; whatever is pending through that wait is promoted to the old generation
 * (docs/performance.md). Take the batch once it is ready, write it, wait for the client's drain when its buffer is
 * full, then poll again.
 */
function polledRelay(chain: Chain, ctx: RequestContext, sink: ResponseSink, frames: FrameSource): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (): void => {
      try {
        for (;;) {
          if (!frames.poll(step)) return;
          const drained = writeBatch(chain, ctx, sink, frames.take());
          if (drained === STREAM_END) {
            resolve();
            return;
          }
          if (drained !== undefined) {
            drained.then(step, reject);
            return;
          }
        }
      } catch (err) {
        reject(err);
      }
    };
    step();
  });
}

const STREAM_END = Symbol('stream end');

/**
 * Runs one batch (the frames of one upstream read; null at the end) through the frame plugins and writes what is left; the
 * drain to wait for when the client's buffer is full. The frames leave in one write, as soon as they are
 * processed: not held for a later read, not split into one per frame.
 */
function writeBatch(
  chain: Chain,
  ctx: RequestContext,
  sink: ResponseSink,
  batch: readonly SseFrame[] | null,
): Promise<void> | undefined | typeof STREAM_END {
  if (batch === null) return STREAM_END;
  const several = batch.length > 1;
  if (several) sink.cork();
  let drained: Promise<void> | undefined;
  // Frames passed on untouched lie side by side in the upstream's read: they go out as one write (each write
  // costs Node's per-chunk machinery and an iovec), the bytes unchanged.
  let span: Uint8Array | null = null;
  let spanEnd = 0;
  try {
    for (const upstreamFrame of batch) {
      let frame: SseFrame | null = upstreamFrame;
      for (const plugin of chain.frame) {
        frame = plugin.frame?.(ctx, frame) ?? null;
        if (frame === null) break;
      }
      if (frame === null) continue;
      ctx.framesSent++;
      if (ctx.firstByteAt === null) ctx.firstByteAt = performance.now();
      const raw = frame.raw;
      if (span !== null && raw.buffer === span.buffer && raw.byteOffset === spanEnd) {
        spanEnd += raw.length;
        continue;
      }
      if (span !== null) drained = sink.write(joined(span, spanEnd)) ?? drained;
      span = raw;
      spanEnd = raw.byteOffset + raw.length;
    }
    if (span !== null) drained = sink.write(joined(span, spanEnd)) ?? drained;
  } finally {
    if (several) sink.uncork();
  }
  return drained;
}

/** `first` extended to `end` (a byte offset in its ArrayBuffer): the bytes of adjacent frames as one view. */
function joined(first: Uint8Array, end: number): Uint8Array {
  const length = end - first.byteOffset;
  return length === first.length ? first : Buffer.from(first.buffer, first.byteOffset, length);
}

function answerError(chain: Chain, ctx: RequestContext, sink: ResponseSink, err: unknown): void {
  if (ctx.abort.aborted && !ctx.abort.byShutdown) {
    // The client is gone: nothing can be written, the record says so.
    ctx.aborted = true;
    ctx.error = new GatewayError('GW_ERR_CLIENT_CLOSED', 'the client closed the request');
    if (!sink.started) ctx.status = ctx.error.status;
    return;
  }
  // Cut by shutdown after the grace period: the client is still there and hears why (in-band once streaming).
  if (ctx.abort.byShutdown) ctx.aborted = true;
  const error = ctx.abort.byShutdown ? shutdownError() : toGatewayError(err);
  ctx.error = error;
  if (!sink.started) {
    const rendered = ctx.format.encodeError(error, { requestId: ctx.id, path: ctx.path });
    ctx.status = rendered.status;
    sink.send(rendered.status, withAdded(rendered.headers, ctx), rendered.body, overheadOf(ctx, chain, performance.now()));
    return;
  }
  // The status is already on the wire: the format's in-band error frame, then close.
  sink.write(ctx.format.encodeStreamError(error).raw);
  sink.end();
}

/** An answer's headers with those plugins added for every answer (ctx.responseHeaders: the rate limits', quota's cost). */
function withAdded(headers: Readonly<Record<string, string>>, ctx: RequestContext): Readonly<Record<string, string>> {
  return ctx.responseHeaders === null ? headers : Object.assign({}, headers, ctx.responseHeaders);
}

/**
 * x-gateway-overhead-ms, when an upstream took part in the answer: the gateway's own time until `now`, the answer's
 * headers (what LiteLLM's x-litellm-overhead-duration-ms says: the whole but the upstreams' part and the client's
 * body). A stream's later frames are not in it: its headers leave before them.
 */
function overheadOf(ctx: RequestContext, chain: Chain, now: number): string | undefined {
  if (ctx.upstreamWaitMs === null || !chain.overheadHeader) return undefined;
  return overheadText(now - ctx.startedAt - ctx.bodyWaitMs - ctx.upstreamWaitMs);
}

/**
 * Milliseconds to the microsecond ("0.183"), never below 0 (the parts are read off one clock, rounded apart). Built
 * from integers: a fraction's shortest decimal form (String of a double) costs several times as much, on every answer.
 */
export function overheadText(ms: number): string {
  if (ms <= 0) return '0';
  const micros = Math.round(ms * 1000);
  const fraction = micros % 1000;
  const whole = (micros - fraction) / 1000;
  if (fraction === 0) return String(whole);
  return whole + (fraction < 10 ? '.00' : fraction < 100 ? '.0' : '.') + fraction;
}

function shutdownError(): GatewayError {
  return new GatewayError('GW_ERR_SHUTTING_DOWN', 'The gateway is shutting down and ended this request; retry shortly.', { retryAfter: 1 });
}
