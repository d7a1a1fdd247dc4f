// The OTLP exporter with its failures counted: an export that fails (the collector down, refusing, too slow) loses
// its spans and touches no request; the operator sees it in gateway_trace_export_failures_total.

import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

export class CountingExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly failed: (spans: number) => void,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.failed(spans.length);
      resultCallback(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
