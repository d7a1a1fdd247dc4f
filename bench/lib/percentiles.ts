// Exact latency percentiles from every sample (float milliseconds). Load generators' own histograms round to
// 1 ms, which is coarser than what a gateway adds.

export interface Percentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** A growable array of numbers; Float64Array, so a million samples cost 8 MB and no GC churn. */
export class Samples {
  private data = new Float64Array(1 << 12);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  sorted(): Float64Array {
    return this.data.slice(0, this.length).sort();
  }
  percentiles(): Percentiles {
    return percentilesOf(this.sorted());
  }
}

/** Nearest-rank percentile of sorted values; NaN when empty. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function percentilesOf(sorted: Float64Array): Percentiles {
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? NaN : (sorted[sorted.length - 1] as number),
    mean: sorted.length === 0 ? NaN : sum / sorted.length,
  };
}
