// A Prometheus histogram for the request path: each series counts its observations per bucket in a plain array,
// and the registry reads them when it is scraped. prom-client's Histogram validates the labels object, hashes it
// into a string key and builds a value pair on every observe(); the meter observes twice per request (latency,
// time to first token), ~2% of a small request's CPU (bench:ab with and without them). The exposition is
// prom-client's own, byte for byte (test/core/metrics/summed-histogram.test.ts): cumulative `_bucket{le}`, then
// `+Inf`, `_sum` and `_count`.

import type { Metric, Registry } from 'prom-client';
import { LabelTree } from './label-tree.js';

interface Series {
  readonly labels: Record<string, string>;
  /** Observations per bucket, not cumulative: counts[i] had bounds[i-1] < value <= bounds[i]. */
  readonly counts: number[];
  sum: number;
  count: number;
}

/** One value line of the exposition, in the shape prom-client's registry formats. */
interface ValueLine {
  readonly value: number;
  readonly labels: Record<string, string | number>;
  readonly sharedLabels?: Record<string, string>;
  readonly metricName: string;
  /** As prom-client's lines carry it (null on buckets, undefined on _sum and _count without exemplars): its JSON form shows it. */
  readonly exemplar: null | undefined;
}

export class SummedHistogram {
  private readonly series: Series[] = [];
  private readonly tree: LabelTree<Series>;

  constructor(
    private readonly name: string,
    private readonly help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    if (bounds.some((b, i) => i > 0 && b <= (bounds[i - 1] as number))) throw new Error('bucket bounds must increase');
    // As prom-client's Histogram refuses it: `le` is the bucket's own label.
    if (labelNames.includes('le')) throw new Error('le is a reserved label name of a histogram');
    this.tree = new LabelTree(labelNames, (labels) => {
      const created: Series = { labels, counts: bounds.map(() => 0), sum: 0, count: 0 };
      this.series.push(created);
      return created;
    });
    // The registry reads a metric through get() (JSON), getForPromString() (text) and reset(); its types name
    // only prom-client's own classes, hence the cast. registry.getSingleMetric() gives this plain object, which
    // has none of a Histogram's methods (nothing here asks it for one).
    registry.registerMetric(this.exported() as unknown as Metric);
  }

  /** `values` in the order of the label names; `value` in the buckets' unit (seconds). */
  observe(values: readonly string[], value: number): void {
    // Refused here, as prom-client would: a NaN summed in would spoil the series for good.
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const series = this.tree.get(values);
    series.sum += value;
    series.count++;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= (bounds[i] as number)) {
        (series.counts[i] as number)++;
        return;
      }
    }
  }

  private lines(): ValueLine[] {
    const out: ValueLine[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.series) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.counts[i] as number;
        out.push({ value: cumulative, labels: { le }, sharedLabels: s.labels, metricName: bucket, exemplar: null });
      });
      out.push({ value: s.count, labels: { le: '+Inf' }, sharedLabels: s.labels, metricName: bucket, exemplar: null });
      out.push({ value: s.sum, labels: {}, sharedLabels: s.labels, metricName: `${this.name}_sum`, exemplar: undefined });
      out.push({ value: s.count, labels: {}, sharedLabels: s.labels, metricName: `${this.name}_count`, exemplar: undefined });
    }
    return out;
  }

  /** In prom-client's key order, so that its JSON form serializes the same. */
  private metricObject(values: readonly object[]): object {
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }

  private exported(): object {
    return {
      name: this.name,
      help: this.help,
      type: 'histogram',
      aggregator: 'sum',
      getForPromString: async () => this.metricObject(this.lines()),
      // The JSON form has every label in `labels`, as prom-client's Histogram.get() gives it.
      get: async () =>
        this.metricObject(this.lines().map(({ sharedLabels, labels, ...line }) => Object.assign(line, { labels: Object.assign({}, labels, sharedLabels) }))),
      reset: () => {
        this.series.length = 0;
        this.tree.clear();
      },
    };
  }
}
