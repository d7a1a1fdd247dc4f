// The telemetry feature's `telemetry:` keys: off when absent, validated with core's schema, resolved under its slot
// with the defaults, the traces URL derived as the OTel SDKs derive it; its headers redacted where the config is shown.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../core/config/load.js';
import { redactConfig } from '../../core/config/redact-config.js';
import { ConfigError } from '../../core/config/resolved.js';
import { sectionOf } from '../../core/config/section.js';
import { registryOf } from '../../core/feature/compose.js';
import { TELEMETRY_DEFAULTS, TELEMETRY_SETTINGS, tracesUrlOf } from './config.js';
import { telemetryFeature } from './index.js';

const CHANNELS = 'channels:\n  - { name: demo, type: mock, models: ["*"] }\n';
const parse = (text: string) => parseConfig(text, { file: null, env: { OTLP_TOKEN: 'tok-0123456789' }, endpoints: registryOf([telemetryFeature]) });

describe('telemetry config section', () => {
  it('is off without the section', () => {
    assert.equal(sectionOf(parse(CHANNELS), TELEMETRY_SETTINGS), null);
  });

  it('resolves the written keys and fills the rest with the defaults', () => {
    const config = parse(`${CHANNELS}telemetry:\n  otlp_endpoint: http://collector:4318\n  headers: { authorization: "Bearer \${OTLP_TOKEN}" }\n`);
    assert.deepEqual(sectionOf(config, TELEMETRY_SETTINGS), {
      tracesUrl: 'http://collector:4318/v1/traces',
      sampleRatio: TELEMETRY_DEFAULTS.sampleRatio,
      serviceName: TELEMETRY_DEFAULTS.serviceName,
      headers: { authorization: 'Bearer tok-0123456789' },
      exportTimeoutMs: TELEMETRY_DEFAULTS.exportTimeoutMs,
    });
    const written = parse(`${CHANNELS}telemetry:\n  otlp_endpoint: https://otlp.example/v1/traces\n  sample_ratio: 0.25\n  service_name: edge\n  export_timeout_ms: 500\n`);
    assert.deepEqual(sectionOf(written, TELEMETRY_SETTINGS), { tracesUrl: 'https://otlp.example/v1/traces', sampleRatio: 0.25, serviceName: 'edge', headers: {}, exportTimeoutMs: 500 });
  });

  it('is validated with the rest of the file: every problem at once', () => {
    assert.throws(
      () => parse(`${CHANNELS}telemetry:\n  otlp_endpoint: ftp://collector\n  sample_ratio: 2\n  knob: 1\nserver:\n  port: -1\n`),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        const text = err.issues.join('\n');
        assert.match(text, /telemetry\.otlp_endpoint/);
        assert.match(text, /telemetry\.sample_ratio/);
        assert.match(text, /telemetry.*knob/);
        assert.match(text, /server\.port/);
        return true;
      },
    );
    assert.throws(() => parse(`${CHANNELS}telemetry:\n  sample_ratio: 1\n`), /otlp_endpoint/);
  });

  it('derives the traces URL from a base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT is read', () => {
    assert.equal(tracesUrlOf('http://c:4318'), 'http://c:4318/v1/traces');
    assert.equal(tracesUrlOf('http://c:4318/'), 'http://c:4318/v1/traces');
    assert.equal(tracesUrlOf('https://x.example/otlp/'), 'https://x.example/otlp/v1/traces');
    assert.equal(tracesUrlOf('http://c:4318/v1/traces'), 'http://c:4318/v1/traces');
  });

  it('shows its headers redacted, its endpoint without credentials', () => {
    const shown = redactConfig(`telemetry:\n  otlp_endpoint: https://user:pw-0123456789@otlp.example\n  headers:\n    x-honeycomb-team: hc-0123456789abcdef\n    authorization: \${OTLP_TOKEN}\n`);
    assert.ok(!shown.includes('hc-0123456789abcdef'), shown);
    assert.ok(!shown.includes('pw-0123456789'), shown);
    assert.match(shown, /x-honeycomb-team: "?\*\*\*redacted\*\*\*"?/);
  });
});
