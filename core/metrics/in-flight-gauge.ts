// A Prometheus gauge of things open at once, by one label (streams in flight, by route): counted in a plain
// Map and set on prom-client's gauge when the registry is scraped (its `collect` hook). prom-client's
// `labels()` makes five bound functions per call, which a stream would hold for its whole life (~0.4 KB per
// open stream, heap snapshot), and hashes the label values on every `inc()`/`dec()`.

import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/** The count of one label value; the caller keeps it for the matching `close`. */
export interface InFlight {
  open: number;
}

export class InFlightGauge {
  private readonly counts = new Map<string, InFlight>();

  constructor(name: string, help: string, labelName: string, registry: Registry) {
    const counts = this.counts;
    new Gauge({
      name,
      help,
      labelNames: [labelName],
      registers: [registry],
      collect(this: Gauge) {
        for (const [value, count] of counts) this.set({ [labelName]: value }, count.open);
      },
    });
  }

  /** One more open under `value`; hand the result to `close` when it ends. */
  enter(value: string): InFlight {
    let count = this.counts.get(value);
    if (count === undefined) {
      count = { open: 0 };
      this.counts.set(value, count);
    }
    count.open++;
    return count;
  }

  close(count: InFlight): void {
    count.open--;
  }
}
