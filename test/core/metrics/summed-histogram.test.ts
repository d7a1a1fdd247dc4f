// SummedHistogram: what a scrape shows is exactly what prom-client's own Histogram shows for the same
// observations (text and JSON, byte for byte), scrape after scrape; a reset forgets the series as prom-client's does.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { SummedHistogram } from '../../../core/metrics/summed-histogram.js';

const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LABELS = ['route', 'model', 'channel'] as const;

function pair(): { ours: SummedHistogram; theirs: Histogram<(typeof LABELS)[number]>; a: Registry; b: Registry } {
  const a = new Registry();
  const b = new Registry();
  const ours = new SummedHistogram('t_seconds', 'test help', LABELS, BOUNDS, a);
  const theirs = new Histogram({ name: 't_seconds', help: 'test help', labelNames: LABELS, buckets: BOUNDS, registers: [b] });
  return { ours, theirs, a, b };
}

const observation = fc.record({
  route: fc.constantFrom('/v1/chat/completions', '/v1/messages'),
  model: fc.constantFrom('gpt-4o', 'claude "q"', 'a\\b', 'unrouted'),
  channel: fc.constantFrom('a', 'b', 'none'),
  // Values on, below, between and above the bounds.
  value: fc.oneof(fc.constantFrom(0, ...BOUNDS, 10.000001, 1e6), fc.double({ min: 0, max: 20, noNaN: true })),
});

test('the exposition equals prom-client\'s Histogram for the same observations, scrape after scrape', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(observation, { maxLength: 30 }), { minLength: 1, maxLength: 4 }), async (rounds) => {
      const { ours, theirs, a, b } = pair();
      for (const round of rounds) {
        for (const o of round) {
          ours.observe([o.route, o.model, o.channel], o.value);
          theirs.observe({ route: o.route, model: o.model, channel: o.channel }, o.value);
        }
        assert.equal(await a.metrics(), await b.metrics());
        assert.deepEqual(await a.getMetricsAsJSON(), await b.getMetricsAsJSON());
        assert.equal(JSON.stringify(await a.getMetricsAsJSON()), JSON.stringify(await b.getMetricsAsJSON()), 'serialized alike, key order included');
      }
    }),
    { numRuns: 200 },
  );
});

test('the text exposition has cumulative buckets, +Inf, _sum and _count', async () => {
  const { ours, a } = pair();
  ours.observe(['r', 'm', 'c'], 0.007);
  ours.observe(['r', 'm', 'c'], 0.3);
  ours.observe(['r', 'm', 'c'], 99);
  const text = await a.metrics();
  assert.match(text, /^t_seconds_bucket\{le="0.005",route="r",model="m",channel="c"\} 0$/m);
  assert.match(text, /^t_seconds_bucket\{le="0.01",route="r",model="m",channel="c"\} 1$/m);
  assert.match(text, /^t_seconds_bucket\{le="0.5",route="r",model="m",channel="c"\} 2$/m);
  assert.match(text, /^t_seconds_bucket\{le="10",route="r",model="m",channel="c"\} 2$/m);
  assert.match(text, /^t_seconds_bucket\{le="\+Inf",route="r",model="m",channel="c"\} 3$/m);
  assert.match(text, /^t_seconds_sum\{route="r",model="m",channel="c"\} 99.307$/m);
  assert.match(text, /^t_seconds_count\{route="r",model="m",channel="c"\} 3$/m);
});

test('a registry reset forgets every series, as prom-client does', async () => {
  const { ours, theirs, a, b } = pair();
  ours.observe(['r', 'm', 'c'], 1);
  theirs.observe({ route: 'r', model: 'm', channel: 'c' }, 1);
  a.resetMetrics();
  b.resetMetrics();
  assert.equal(await a.metrics(), await b.metrics());
  assert.doesNotMatch(await a.metrics(), /t_seconds_count/);
  ours.observe(['r', 'm', 'c'], 2);
  assert.match(await a.metrics(), /^t_seconds_count\{route="r",model="m",channel="c"\} 1$/m);
});

test('a wrong number of label values or a value that is not a finite number is refused and changes nothing', async () => {
  const { ours, a } = pair();
  assert.throws(() => ours.observe(['r', 'm'], 1), /3 label values expected/);
  assert.throws(() => ours.observe(['r', 'm', 'c'], Number.NaN), TypeError);
  assert.throws(() => ours.observe(['r', 'm', 'c'], Number.POSITIVE_INFINITY), TypeError);
  assert.doesNotMatch(await a.metrics(), /t_seconds_bucket/);
});

test('bucket bounds that do not increase, and a label named le, are refused', () => {
  assert.throws(() => new SummedHistogram('u_seconds', 'h', ['a'], [1, 1], new Registry()), /must increase/);
  assert.throws(() => new SummedHistogram('w_seconds', 'h', ['route', 'le'], [1], new Registry()), /reserved/);
});
