// Telemetry: OpenTelemetry traces of the requests, exported over OTLP/HTTP, when gateway.yaml has `telemetry:`. Core
// calls the tracer through its contract (core/pipeline/tracing.ts); without this section no request is traced and no
// exporter is made.

import { Counter } from 'prom-client';
import { sectionOf } from '../../core/config/section.js';
import type { Feature } from '../../core/feature/feature.js';
import type { GatewayMetrics } from '../../core/metrics/gateway-metrics.js';
import { REQUEST_TRACER, type RequestTracer } from '../../core/pipeline/tracing.js';
import { TELEMETRY_SETTINGS, telemetryConfig } from './config.js';
import { OtelRequestTracer } from './tracer.js';

const FAILURES = 'gateway_trace_export_failures_total';

/** The process's one counter (the registry outlives config loads, each of which has a tracer of its own). */
function exportFailures(metrics: GatewayMetrics): Counter {
  const known = metrics.registry.getSingleMetric(FAILURES);
  if (known instanceof Counter) return known;
  return new Counter({
    name: FAILURES,
    help: 'Span exports to the OTLP collector that failed (the collector down, refusing or too slow); their spans are lost, no request is affected.',
    registers: [metrics.registry],
  });
}

export const telemetryFeature: Feature = {
  name: 'telemetry',
  routes: [],
  config: telemetryConfig,
  services: [
    {
      slot: REQUEST_TRACER,
      close: async (tracer: RequestTracer | null) => tracer?.close(),
      create: (core): RequestTracer | null => {
        const settings = sectionOf(core.config, TELEMETRY_SETTINGS);
        if (settings === null) return null;
        const failures = exportFailures(core.metrics);
        return new OtelRequestTracer(settings, () => failures.inc());
      },
    },
  ],
};

export default telemetryFeature;
