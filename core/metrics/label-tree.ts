// The series of a metric on the request path, found by its label values without building a key: one Map level
// per label, the values' own strings as the keys (summed-counter.ts, summed-histogram.ts).

/** A level's entries: the next level, or the series at the last label. */
type Level<T> = Map<string, Level<T> | T>;

export class LabelTree<T> {
  private readonly root: Level<T> = new Map();

  /** `create` makes a series the first time its values are seen, with its labels as prom-client takes them. */
  constructor(
    private readonly labelNames: readonly string[],
    private readonly create: (labels: Record<string, string>) => T,
  ) {}

  /** The series of `values`, in the order of the label names; made on first use. */
  get(values: readonly string[]): T {
    if (values.length !== this.labelNames.length) throw new Error(`${this.labelNames.length} label values expected`);
    let level = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      const value = values[i] as string;
      let next = level.get(value) as Level<T> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const found = level.get(values[last] as string) as T | undefined;
    if (found !== undefined) return found;
    const labels: Record<string, string> = {};
    this.labelNames.forEach((name, i) => (labels[name] = values[i] as string));
    const created = this.create(labels);
    level.set(values[last] as string, created);
    return created;
  }

  /** Forgets every series (a registry reset). */
  clear(): void {
    this.root.clear();
  }
}
