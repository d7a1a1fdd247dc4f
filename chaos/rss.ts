// Each instance process's resident memory, sampled every second: what it settled at once it had served load for
// 30 s (a process started under load grows to its working set over its first tens of seconds), its peak, and its last sample (a process restarted or killed keeps its figures; the running one's `after` is
// read at the end).

import type { Fleet } from './fleet.js';
import type { RssFigure } from './invariants.js';

const SETTLE_MS = 30_000;

interface Life {
  readonly instance: number;
  readonly generation: number;
  readonly since: number;
  settled: number;
  peak: number;
  last: number;
  lastAt: number;
}

export interface RssWatch {
  /** Every process's figures; the running ones' `after` read now. */
  figures(): Promise<RssFigure[]>;
  stop(): void;
}

export function watchRss(fleet: Fleet): RssWatch {
  const lives: Life[] = [];
  const current = (index: number, generation: number): Life => {
    let life = lives.find((l) => l.instance === index && l.generation === generation);
    if (life === undefined) {
      life = { instance: index, generation, since: Date.now(), settled: 0, peak: 0, last: 0, lastAt: 0 };
      lives.push(life);
    }
    return life;
  };
  const timer = setInterval(() => {
    for (const instance of fleet.instances) {
      const life = current(instance.index, instance.starts);
      void fleet
        .rss(instance)
        .then((rss) => {
          if (rss === 0 || instance.starts !== life.generation) return;
          if (life.settled === 0 && Date.now() - life.since >= SETTLE_MS) life.settled = rss;
          life.peak = Math.max(life.peak, rss);
          life.last = rss;
          life.lastAt = Date.now();
        })
        .catch(() => undefined);
    }
  }, 1000);
  return {
    async figures() {
      const figures: RssFigure[] = [];
      for (const life of lives) {
        const instance = fleet.instances[life.instance];
        const final = instance !== undefined && instance.starts === life.generation;
        const after = final ? await fleet.rss(instance) : life.last;
        figures.push({ instance: life.instance, generation: life.generation, lifeMs: (final ? Date.now() : life.lastAt) - life.since, settled: life.settled, peak: Math.max(life.peak, after), after, final });
      }
      return figures;
    },
    stop: () => clearInterval(timer),
  };
}
