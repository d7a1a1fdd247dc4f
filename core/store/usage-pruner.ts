// usage.retention_days: usage records older than that are deleted, a small batch at a time, off the request path. Each
// batch is one short transaction (the event loop is held only that long: SQLite's statements are synchronous), then the
// pruner waits before the next, so requests and usage batches go between them; nothing is read into memory but the
// batch's ids. The hourly sums (usage_hourly) are kept, so dashboards of old periods stay, and the cost of what was
// deleted is added up per account (usage_pruned) in the same transaction, so the audit still balances every charge.

import type { Logger } from '../logging/logger.js';
import type { UsageStore } from './store.js';

const DAY_MS = 86_400_000;

export interface UsagePrunerOptions {
  readonly store: Pick<UsageStore, 'pruneUsage'>;
  /** Days kept; null keeps everything (read at each run: a reload applies). */
  readonly retentionDays: () => number | null;
  readonly logger: Logger;
  /** Records per batch. */
  readonly batch?: number;
  /** The pause between two batches. */
  readonly pauseMs?: number;
  /** How often a run starts. */
  readonly intervalMs?: number;
  readonly now?: () => number;
}

export class UsagePruner {
  readonly #options: UsagePrunerOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<number> | null = null;
  #stopped = false;

  constructor(options: UsagePrunerOptions) {
    this.#options = options;
  }

  start(): void {
    const interval = this.#options.intervalMs ?? 600_000;
    // The first run soon after start (not during it: the store is busy with the start's own work then).
    const tick = (): void => {
      if (this.#running === null) this.#running = this.run().finally(() => (this.#running = null));
    };
    this.#timer = setInterval(tick, interval);
    this.#timer.unref();
    setTimeout(tick, Math.min(interval, 10_000)).unref();
  }

  /** Deletes every record older than the retention, a batch at a time; how many. */
  async run(): Promise<number> {
    const days = this.#options.retentionDays();
    if (days === null) return 0;
    const batch = this.#options.batch ?? 500;
    const pauseMs = this.#options.pauseMs ?? 20;
    const before = (this.#options.now ?? Date.now)() - days * DAY_MS;
    let total = 0;
    try {
      while (!this.#stopped) {
        const deleted = await this.#options.store.pruneUsage(before, batch);
        total += deleted;
        if (deleted < batch) break;
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    } catch (err) {
      this.#options.logger.warn({ err, deleted: total }, 'pruning old usage records failed; the next run goes on');
    }
    if (total > 0) this.#options.logger.info({ deleted: total, days }, 'old usage records pruned (their hourly sums are kept)');
    return total;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    await this.#running;
  }
}
