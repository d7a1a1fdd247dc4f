// The telemetry settings (gateway.yaml's `telemetry:`): where spans go, how many requests are traced, as whom.

import { documentAs, type ConfigSection } from '../../core/config/section.js';
import { slot, type Slot } from '../../core/slot.js';
import type { TelemetryConfig } from './config.gen.js';
import { TELEMETRY_CONFIG_SCHEMA } from './config-schema.js';

export interface TelemetrySettings {
  /** The full URL spans are posted to (…/v1/traces). */
  readonly tracesUrl: string;
  readonly sampleRatio: number;
  readonly serviceName: string;
  /** Sent with every export; a secret as much as a key is. */
  readonly headers: Readonly<Record<string, string>>;
  readonly exportTimeoutMs: number;
}

/** The schema's defaults (test/architecture/section-types.test.ts holds them equal). */
export const TELEMETRY_DEFAULTS = { sampleRatio: 1, serviceName: 'llm-gateway', exportTimeoutMs: 10000 } as const;

/** Null: tracing is off (no `telemetry:`). */
export const TELEMETRY_SETTINGS: Slot<TelemetrySettings | null> = slot('telemetry settings');

/** OTLP/HTTP's path for traces, below the collector's base URL. */
const OTLP_TRACES = 'v1/traces';

/** The OTLP/HTTP traces URL of a base endpoint, as the OTel SDKs derive it from OTEL_EXPORTER_OTLP_ENDPOINT. */
export function tracesUrlOf(endpoint: string): string {
  if (!URL.canParse(endpoint)) return endpoint;
  const url = new URL(endpoint);
  const base = url.pathname.replace(/\/+$/, '');
  if (base.endsWith(`/${OTLP_TRACES}`)) return url.href;
  url.pathname = `${base}/${OTLP_TRACES}`;
  return url.href;
}

/** The schema's string map as plain strings (the generated type allows an absent value, which validation does not). */
function headersOf(headers: Readonly<Record<string, string | undefined>> | undefined): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) out[name] = value;
  return out;
}

export const telemetryConfig: ConfigSection<TelemetrySettings | null> = {
  slot: TELEMETRY_SETTINGS,
  schema: TELEMETRY_CONFIG_SCHEMA,
  check: (document) => {
    const endpoint = documentAs<TelemetryConfig>(document).telemetry?.otlp_endpoint;
    if (endpoint === undefined || URL.canParse(endpoint)) return [];
    return [{ path: ['telemetry', 'otlp_endpoint'], message: 'not a URL' }];
  },
  resolve: (document) => {
    const telemetry = documentAs<TelemetryConfig>(document).telemetry;
    if (telemetry === undefined) return null;
    return {
      tracesUrl: tracesUrlOf(telemetry.otlp_endpoint),
      sampleRatio: telemetry.sample_ratio ?? TELEMETRY_DEFAULTS.sampleRatio,
      serviceName: telemetry.service_name ?? TELEMETRY_DEFAULTS.serviceName,
      headers: headersOf(telemetry.headers),
      exportTimeoutMs: telemetry.export_timeout_ms ?? TELEMETRY_DEFAULTS.exportTimeoutMs,
    };
  },
};
