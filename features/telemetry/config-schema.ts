// The telemetry feature's keys in gateway.yaml, as JSON Schema: validated with core's schema (core/config/section.ts);
// `npm run gen` types them (config.gen.ts) and documents them (docs/config-reference.md).

import type { SectionSchema } from '../../core/config/section.js';

export const TELEMETRY_CONFIG_SCHEMA = {
  properties: {
    telemetry: {
      type: 'object',
      additionalProperties: false,
      required: ['otlp_endpoint'],
      description:
        'OpenTelemetry traces, exported over OTLP/HTTP (JSON): a span per request, one per upstream attempt and one per store write the request waits for (docs/operations.md, "Traces"). Absent: no request is traced, nothing is sent.',
      properties: {
        otlp_endpoint: {
          type: 'string',
          pattern: '^https?://',
          maxLength: 2048,
          description:
            'The collector\'s OTLP/HTTP base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it (http://collector:4318): spans go to its /v1/traces (a URL that already ends so is used as it is).',
        },
        sample_ratio: {
          type: 'number',
          minimum: 0,
          maximum: 1,
          default: 1,
          description:
            'The share of requests traced when the client sent no traceparent (by trace id); a client\'s traceparent decides for its requests (its sampled flag).',
        },
        service_name: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          default: 'llm-gateway',
          description: 'The spans\' service.name.',
        },
        headers: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Headers sent with every export (a collector\'s credentials: use ${ENV}); never logged, redacted where the config is shown.',
        },
        export_timeout_ms: {
          type: 'integer',
          minimum: 100,
          maximum: 60000,
          default: 10000,
          description: 'How long one export, its retries included, may take before its spans are given up (counted in gateway_trace_export_failures_total).',
        },
      },
    },
  },
} as const satisfies SectionSchema;
