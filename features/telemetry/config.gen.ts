// Generated from features/telemetry/config-schema.ts by `npm run gen`; do not edit. Change the schema and regenerate.

export interface TelemetryConfig {
  /**
   * OpenTelemetry traces, exported over OTLP/HTTP (JSON): a span per request, one per upstream attempt and one per store write the request waits for (docs/operations.md, "Traces"). Absent: no request is traced, nothing is sent.
   */
  telemetry?: {
    /**
     * The collector's OTLP/HTTP base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (http://collector:4318): spans go to its /v1/traces (a URL that already ends so is used as it is).
     */
    otlp_endpoint: string;
    /**
     * The share of requests traced when the client sent no traceparent (by trace id); a client's traceparent decides for its requests (its sampled flag).
     */
    sample_ratio?: number;
    /**
     * The spans' service.name.
     */
    service_name?: string;
    /**
     * Headers sent with every export (a collector's credentials: use ${ENV}); never logged, redacted where the config is shown.
     */
    headers?: {
      [k: string]: string | undefined;
    };
    /**
     * How long one export, its retries included, may take before its spans are given up (counted in gateway_trace_export_failures_total).
     */
    export_timeout_ms?: number;
  };
}
