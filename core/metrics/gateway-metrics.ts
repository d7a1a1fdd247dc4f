// Prometheus metrics of the gateway; one registry per process, so counters survive config reloads.

import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { InFlightGauge } from './in-flight-gauge.js';
import { SummedCounter } from './summed-counter.js';
import { SummedHistogram } from './summed-histogram.js';

const LATENCY_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export class GatewayMetrics {
  readonly registry = new Registry();
  // Counters and histograms updated on every request are summed outside prom-client until scraped
  // (summed-counter.ts, summed-histogram.ts), and so is the count of open streams (in-flight-gauge.ts).
  readonly requests: SummedCounter<'route' | 'model' | 'channel' | 'status'>;
  /** Labels route, model, channel. */
  readonly latency: SummedHistogram;
  /** Labels route, model, channel. */
  readonly timeToFirstToken: SummedHistogram;
  readonly tokens: SummedCounter<'model' | 'channel' | 'kind'>;
  readonly images: SummedCounter<'model' | 'channel'>;
  readonly upstreamErrors: SummedCounter<'channel' | 'reason'>;
  readonly streamsInFlight: InFlightGauge;
  readonly configReloads: Counter<'result'>;
  readonly affinity: SummedCounter<'route' | 'outcome'>;
  readonly refused: SummedCounter<'code'>;
  /** Requests refused by a limit of the gateway's own (not an upstream's 429). */
  readonly rateLimited: SummedCounter<'scope' | 'limit'>;
  /** Calls to Redis that failed or timed out, by use (limits, affinity, cooldowns, heartbeat). */
  readonly sharedStateErrors: SummedCounter<'use'>;
  readonly channelHealthChanges: Counter<'channel' | 'change'>;
  /** Requests holding a concurrency slot, by their key's group (a bounded label, unlike the key). */
  readonly limitedInFlight: InFlightGauge;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.requests = new SummedCounter(
      'gateway_requests_total',
      'Requests answered, by route, model, channel and HTTP status.',
      ['route', 'model', 'channel', 'status'],
      this.registry,
    );
    this.latency = new SummedHistogram(
      'gateway_request_duration_seconds',
      'Time from request arrival to the last byte of the response.',
      ['route', 'model', 'channel'],
      LATENCY_BUCKETS,
      this.registry,
    );
    this.timeToFirstToken = new SummedHistogram(
      'gateway_time_to_first_token_seconds',
      'Time from request arrival to the first byte of the response body.',
      ['route', 'model', 'channel'],
      LATENCY_BUCKETS,
      this.registry,
    );
    this.tokens = new SummedCounter(
      'gateway_tokens_total',
      'Tokens reported by upstreams, by kind: prompt, completion, cached (cache reads), cache_write, reasoning, ' +
        'input_image, output_image (the image part of prompt and completion, on the image routes).',
      ['model', 'channel', 'kind'],
      this.registry,
    );
    this.images = new SummedCounter('gateway_images_total', 'Images made on the image routes, by model and channel.', ['model', 'channel'], this.registry);
    this.upstreamErrors = new SummedCounter(
      'gateway_upstream_errors_total',
      'Failed upstream attempts, by channel and reason (connect, timeout, protocol, redirect, status_NNN, stream).',
      ['channel', 'reason'],
      this.registry,
    );
    this.streamsInFlight = new InFlightGauge('gateway_streams_in_flight', 'Streaming responses currently open to clients.', 'route', this.registry);
    this.configReloads = new Counter({
      name: 'gateway_config_reloads_total',
      help: 'Config reloads, by result (ok, rejected).',
      labelNames: ['result'],
      registers,
    });
    this.affinity = new SummedCounter(
      'gateway_affinity_total',
      'Requests with a conversation key, by outcome: hit (served where the conversation was bound), miss (no ' +
        'binding yet), break (moved: the bound channel failed, was cooling down, left the config, or a higher ' +
        'priority tier became healthy again).',
      ['route', 'outcome'],
      this.registry,
    );
    this.refused = new SummedCounter(
      'gateway_refused_total',
      'Requests answered with an error outside the plugin chains (malformed HTTP, unknown paths, shutdown, the ' +
        'models, metrics and admin routes), by gateway error code.',
      ['code'],
      this.registry,
    );
    this.rateLimited = new SummedCounter(
      'gateway_rate_limited_total',
      "Requests answered 429 by one of the gateway's own limits, by scope (key, model, account, route) and limit (rpm, " +
        "tpm, concurrency); an upstream's 429 counts in gateway_upstream_errors_total (status_429).",
      ['scope', 'limit'],
      this.registry,
    );
    this.sharedStateErrors = new SummedCounter(
      'gateway_shared_state_errors_total',
      'Calls to Redis that failed or did not answer in time, by use (limits, affinity, cooldowns, heartbeat); redis.on_failure says what requests get meanwhile.',
      ['use'],
      this.registry,
    );
    this.channelHealthChanges = new Counter({
      name: 'gateway_channel_health_changes_total',
      help: 'Changes of a channel\'s rotation made by this instance (once per fleet with Redis): errors (taken out), probe_failed (kept out), probe_served (back in), reset (put back by an operator).',
      labelNames: ['channel', 'change'],
      registers,
    });
    this.limitedInFlight = new InFlightGauge(
      'gateway_limited_requests_in_flight',
      'Requests in flight that hold a concurrency slot of their key, its model or its account, by the key\'s group.',
      'group',
      this.registry,
    );
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }
}
