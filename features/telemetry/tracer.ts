// The gateway's RequestTracer on the OpenTelemetry SDK: a tracer provider of its own (never registered globally), a
// parent-based ratio sampler, a batch span processor and the OTLP/HTTP exporter (JSON). One per config load.

import { ROOT_CONTEXT, SpanKind, defaultTextMapGetter, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler } from '@opentelemetry/sdk-trace';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { RequestTrace, RequestTracer } from '../../core/pipeline/tracing.js';
import type { TelemetrySettings } from './config.js';
import { CountingExporter } from './counting-exporter.js';
import { TracedRequest } from './request-trace.js';

/** The sampler of a request without a client's traceparent: every one or none needs no arithmetic on its trace id. */
function rootSampler(ratio: number): Sampler {
  if (ratio >= 1) return new AlwaysOnSampler();
  if (ratio <= 0) return new AlwaysOffSampler();
  return new TraceIdRatioBasedSampler(ratio);
}

export class OtelRequestTracer implements RequestTracer {
  readonly #provider: TracerProvider;
  readonly #tracer: Tracer;
  readonly #propagator = new W3CTraceContextPropagator();

  /** `failed`: an export failed, its `spans` lost. */
  constructor(settings: TelemetrySettings, failed: (spans: number) => void) {
    const otlp = new OTLPTraceExporter({ url: settings.tracesUrl, headers: Object.assign({}, settings.headers), timeoutMillis: settings.exportTimeoutMs });
    this.#provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
      // A client's traceparent decides for its request (its sampled flag); the ratio decides for the others.
      sampler: new ParentBasedSampler({ root: rootSampler(settings.sampleRatio) }),
      spanProcessors: [new BatchSpanProcessor({ exporter: new CountingExporter(otlp, failed), exportTimeoutMillis: settings.exportTimeoutMs + 1000 })],
    });
    this.#tracer = this.#provider.getTracer('llm-gateway');
  }

  begin(ctx: RequestContext): RequestTrace {
    // The client's trace, when its traceparent is valid; a new one otherwise (the propagator ignores a bad header).
    const parent = this.#propagator.extract(ROOT_CONTEXT, ctx.headers, defaultTextMapGetter);
    const span = this.#tracer.startSpan(
      ctx.route,
      // The route names the method where it is not POST (`GET /v1/models/{id}`): no http.request.method of its own.
      { kind: SpanKind.SERVER, attributes: { 'http.route': ctx.route, 'gateway.request.id': ctx.id } },
      parent,
    );
    return new TracedRequest(this.#tracer, span);
  }

  // Neither rejects: a failed export is counted where it fails (CountingExporter) and must stop no reload or shutdown.
  flush(): Promise<void> {
    return this.#provider.forceFlush().catch(() => undefined);
  }

  close(): Promise<void> {
    return this.#provider.shutdown().catch(() => undefined);
  }
}
