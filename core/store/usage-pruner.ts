// usage.retention_days: usage records older than that are deleted, a small batch at a time, off the request path. Each
// batch is one short transaction (the event loop is held only that long: SQLite's statements are synchronous), then the
// pruner waits before the next, so requests and usage batches go between them; nothing is read into memory but the
// batch's ids. The hourly sums (usage_hourly) are kept, so dashboards of old periods stay, and the cost of what was
// deleted is added up per account (usage_pruned) and per period spend row (usage_pruned_spend) in the same
// transaction, so the audit still balances every charge and every period's spend. The same run deletes the spend rows
// of periodic caps whose period ended long ago (period-spends.ts, PERIOD_ROWS_KEPT_MS), whatever the retention: one row
// per key per period would otherwise grow forever.

import type { Logger } from '../logging/logger.js';
import { PERIOD_ROWS_KEPT_MS } from './period-spends.js';
import type { UsageStore } from './store.js';

const DAY_MS = 86_400_000;

export interface UsagePrunerOptions {
  readonly store: Pick<UsageStore, 'pruneUsage' | 'prunePeriodRows'>;
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
  /** The calendar clock periodic caps' periods are on (services.clock: a test's, moved by hand); `now` without. */
  readonly calendar?: () => number;
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

  /** Deletes every record older than the retention, then every period row long over, a batch at a time; how many records. */
  async run(): Promise<number> {
    const now = (this.#options.now ?? Date.now)();
    const records = await this.#pruneRecords(now);
    await this.#prunePeriodRows(this.#options.calendar?.() ?? now);
    return records;
  }

  async #pruneRecords(now: number): Promise<number> {
    const days = this.#options.retentionDays();
    if (days === null) return 0;
    const before = now - days * DAY_MS;
    const total = await this.#batches((batch) => this.#options.store.pruneUsage(before, batch), 'pruning old usage records failed; the next run goes on');
    if (total > 0) this.#options.logger.info({ deleted: total, days }, 'old usage records pruned (their hourly sums are kept)');
    return total;
  }

  async #prunePeriodRows(now: number): Promise<void> {
    const before = now - PERIOD_ROWS_KEPT_MS;
    const total = await this.#batches((batch) => this.#options.store.prunePeriodRows(before, batch), 'pruning the spend rows of old periods failed; the next run goes on');
    if (total > 0) this.#options.logger.info({ deleted: total, startedBefore: new Date(before).toISOString() }, 'spend rows of periods long over pruned');
  }

  /** Runs `prune` a batch at a time, pausing between, until a batch comes back short; how many went. */
  async #batches(prune: (batch: number) => Promise<number>, failed: string): Promise<number> {
    const batch = this.#options.batch ?? 500;
    const pauseMs = this.#options.pauseMs ?? 20;
    let total = 0;
    try {
      while (!this.#stopped) {
        const deleted = await prune(batch);
        total += deleted;
        if (deleted < batch) break;
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    } catch (err) {
      this.#options.logger.warn({ err, deleted: total }, failed);
    }
    return total;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    await this.#running;
  }
}
