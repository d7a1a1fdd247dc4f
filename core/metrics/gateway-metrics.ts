// Prometheus metrics of the gateway; one registry per process, so counters survive config reloads.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'route' | 'model' | 'channel' | 'status'>;
  readonly latency: Histogram<'route' | 'model' | 'channel'>;
  readonly timeToFirstToken: Histogram<'route' | 'model' | 'channel'>;
  readonly tokens: Counter<'model' | 'channel' | 'kind'>;
  readonly upstreamErrors: Counter<'channel' | 'reason'>;
  readonly streamsInFlight: Gauge<'route'>;
  readonly configReloads: Counter<'result'>;
  readonly affinity: Counter<'route' | 'outcome'>;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'gateway_requests_total',
      help: 'Requests answered, by route, model, channel and HTTP status.',
      labelNames: ['route', 'model', 'channel', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Time from request arrival to the last byte of the response.',
      labelNames: ['route', 'model', 'channel'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.timeToFirstToken = new Histogram({
      name: 'gateway_time_to_first_token_seconds',
      help: 'Time from request arrival to the first byte of the response body.',
      labelNames: ['route', 'model', 'channel'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.tokens = new Counter({
      name: 'gateway_tokens_total',
      help: 'Tokens reported by upstreams, by kind: prompt, completion, cached (cache reads), cache_write, reasoning.',
      labelNames: ['model', 'channel', 'kind'],
      registers,
    });
    this.upstreamErrors = new Counter({
      name: 'gateway_upstream_errors_total',
      help: 'Failed upstream attempts, by channel and reason (connect, timeout, protocol, status_NNN, stream).',
      labelNames: ['channel', 'reason'],
      registers,
    });
    this.streamsInFlight = new Gauge({
      name: 'gateway_streams_in_flight',
      help: 'Streaming responses currently open to clients.',
      labelNames: ['route'],
      registers,
    });
    this.configReloads = new Counter({
      name: 'gateway_config_reloads_total',
      help: 'Config reloads, by result (ok, rejected).',
      labelNames: ['result'],
      registers,
    });
    this.affinity = new Counter({
      name: 'gateway_affinity_total',
      help:
        'Requests with a conversation key, by outcome: hit (served where the conversation was bound), miss (no ' +
        'binding yet), break (moved: the bound channel failed, was cooling down, left the config, or a higher ' +
        'priority tier became healthy again).',
      labelNames: ['route', 'outcome'],
      registers,
    });
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }
}
