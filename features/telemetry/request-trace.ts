// One traced request: its SERVER span, a CLIENT span per upstream attempt and an INTERNAL one per store write it
// waits for, parented explicitly (no context manager, no global state). Attributes follow OpenTelemetry's GenAI
// semantic conventions where they have a name (gen_ai.*), the gateway's own (gateway.*) elsewhere; never a key.

import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { ResolvedChannel } from '../../core/config/resolved.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import { CHARGE, USAGE } from '../../core/pipeline/request-slots.js';
import type { AttemptTrace, RequestTrace, StoreWriteTrace } from '../../core/pipeline/tracing.js';

/** The W3C traceparent of a span (version 00: trace id, span id, the sampled flag). */
function traceparentOf(span: Span): string {
  const context = span.spanContext();
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 1) === 1 ? '01' : '00'}`;
}

class TracedAttempt implements AttemptTrace {
  readonly traceparent: string;
  #ended = false;

  constructor(private readonly span: Span) {
    this.traceparent = traceparentOf(span);
  }

  answered(status: number): void {
    this.span.setAttribute('http.response.status_code', status);
  }

  failed(reason: string): void {
    this.span.setAttribute('error.type', reason);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.end();
  }
}

export class TracedRequest implements RequestTrace {
  /** The request span as a parent, made on the first child. */
  #context: Context | null = null;
  /** The attempt in progress: attempts follow one another, and one the relay left open ends with the request. */
  #open: TracedAttempt | null = null;
  /** The channel type of the last attempt (gen_ai.system of the request). */
  #system: string | null = null;

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
  ) {}

  #parent(): Context {
    return (this.#context ??= trace.setSpan(ROOT_CONTEXT, this.span));
  }

  attempt(channel: ResolvedChannel, upstreamModel: string): AttemptTrace {
    this.#open?.end();
    this.#system = channel.type;
    const span = this.tracer.startSpan(
      `attempt ${channel.name}`,
      { kind: SpanKind.CLIENT, attributes: { 'gen_ai.system': channel.type, 'gen_ai.request.model': upstreamModel, 'gateway.channel': channel.name } },
      this.#parent(),
    );
    this.#open = new TracedAttempt(span);
    return this.#open;
  }

  storeWrite(operation: string): StoreWriteTrace {
    const span = this.tracer.startSpan(`store ${operation}`, { kind: SpanKind.INTERNAL, attributes: { 'gateway.store.operation': operation } }, this.#parent());
    return {
      end(error) {
        if (error !== null) {
          span.setAttribute('error.type', error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: error });
        }
        span.end();
      },
    };
  }

  end(ctx: RequestContext, model: string | null): void {
    this.#open?.end();
    const span = this.span;
    span.setAttribute('http.response.status_code', ctx.status);
    if (model !== null && model !== '') span.setAttribute('gen_ai.request.model', model);
    if (this.#system !== null) span.setAttribute('gen_ai.system', this.#system);
    if (ctx.upstreamModel !== null) span.setAttribute('gen_ai.response.model', ctx.upstreamModel);
    if (ctx.channel !== null) span.setAttribute('gateway.channel', ctx.channel);
    const key = ctx.key;
    if (key !== null) span.setAttribute('gateway.key.name', key.name);
    const usage = ctx.get(USAGE);
    if (usage !== undefined) {
      span.setAttribute('gen_ai.usage.input_tokens', usage.promptTokens);
      span.setAttribute('gen_ai.usage.output_tokens', usage.completionTokens);
      // The parts of those counts only when there are some: each attribute is ~70 bytes of every export, and the
      // export is most of what tracing costs a request (README, "Cost"); absent means none.
      if (usage.cachedTokens > 0) span.setAttribute('gen_ai.usage.cache_read.input_tokens', usage.cachedTokens);
      if (usage.cacheWriteTokens > 0) span.setAttribute('gen_ai.usage.cache_creation.input_tokens', usage.cacheWriteTokens);
      if (usage.reasoningTokens > 0) span.setAttribute('gen_ai.usage.reasoning.output_tokens', usage.reasoningTokens);
    }
    const charge = ctx.get(CHARGE);
    const account = charge?.account ?? key?.account;
    if (account !== undefined) span.setAttribute('gateway.account', account);
    if (charge !== undefined) {
      // Nano-units, an integer: a request's charge is far below 2^53 (9 million units).
      span.setAttribute('gateway.charge.nano', Number(charge.cost));
      if (charge.estimated) span.setAttribute('gateway.charge.estimated', true);
    }
    if (ctx.aborted) span.setAttribute('gateway.aborted', true);
    if (ctx.error !== null) {
      span.setAttribute('error.type', ctx.error.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: ctx.error.code });
    }
    span.end();
  }
}
