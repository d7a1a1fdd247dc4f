// The process's video task poller: every tick it leases the unsettled tasks that are due (video-task-store.ts's
// claimDue: one instance at a time per task, PostgreSQL's FOR UPDATE SKIP LOCKED across instances), reads each from
// its upstream (refresh.ts) and gives the lease back. Tasks live in the store, so a restart (or another instance)
// picks up what a stopped one left: a clean stop gives its leases back at once, a killed one's expire.

import type { VideoTaskRow } from './video-task-store.js';
import { refreshTask } from './refresh.js';
import { recordSettled } from './settle.js';
import type { VideoDeps } from './video-deps.js';
import { VIDEO_TASKS } from './store-part.js';
import { sectionOf } from '../../core/config/section.js';
import { VIDEO_SETTINGS } from './config.js';

export interface VideoPollerOptions {
  /** This instance's name as a lease owner. */
  readonly owner: string;
  /** The current config load's deps (a reload swaps them). */
  readonly deps: () => VideoDeps;
  /** How often to look for due tasks; default the poll interval, at most 1 s. */
  readonly tickMs?: number;
  /** Tasks read at once per tick. */
  readonly batch?: number;
  readonly now?: () => number;
}

/** A lease outlives a read of every task of a batch by far; a killed instance's tasks wait this long. */
const LEASE_MS = 120_000;
/** How often what a crash between two steps left is finished: usage records of settled tasks, holds of ended ones. */
const SWEEP_MS = 30_000;
/** A settlement younger than this may still be writing its record itself. */
const RECORD_GRACE_MS = 10_000;

export class VideoPoller {
  readonly #options: VideoPollerOptions;
  readonly #stop = new AbortController();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #swept = 0;
  /**
   * Tasks whose lease this poller could not give back (the store out of reach): given back first thing next pass,
   * or they would wait out the whole lease (claimDue leaves a lease alone while it lasts, its owner's included).
   */
  readonly #unreleased = new Set<string>();

  constructor(options: VideoPollerOptions) {
    this.#options = options;
  }

  start(): void {
    const tick = this.#options.tickMs ?? Math.min(1000, sectionOf(this.#options.deps().config, VIDEO_SETTINGS).pollIntervalMs);
    this.#timer = setInterval(() => {
      if (this.#running === null) this.#running = this.poll().then(
        () => undefined,
        () => undefined,
      ).finally(() => (this.#running = null));
    }, tick);
    this.#timer.unref();
  }

  /** One pass: every due task leased now is read once (and, every SWEEP_MS, the sweep). */
  async poll(): Promise<number> {
    const deps = this.#options.deps();
    const now = (this.#options.now ?? Date.now)();
    if (now - this.#swept >= SWEEP_MS) {
      this.#swept = now;
      await this.sweep(now);
    }
    for (const id of [...this.#unreleased]) {
      try {
        await deps.store.part(VIDEO_TASKS).releaseLease(this.#options.owner, id);
        this.#unreleased.delete(id);
      } catch {
        // Still out of reach: the next pass tries again.
        break;
      }
    }
    let rows: VideoTaskRow[];
    try {
      rows = await deps.store.part(VIDEO_TASKS).claimDue(this.#options.owner, now, now + LEASE_MS, this.#options.batch ?? 16);
    } catch (err) {
      deps.logger.warn({ err }, 'looking for due video tasks failed; retrying');
      return 0;
    }
    await Promise.all(
      rows.map(async (row) => {
        try {
          await refreshTask(deps, row, this.#stop.signal, now);
        } catch (err) {
          deps.logger.warn({ err, task: row.id }, 'refreshing a video task failed; retrying later');
        } finally {
          await deps.store.part(VIDEO_TASKS).releaseLease(this.#options.owner, row.id).catch(() => this.#unreleased.add(row.id));
        }
      }),
    );
    return rows.length;
  }

  /**
   * Finishes what a crash between two steps left: the usage record (the charge) of a task settled without one, written
   * from its row (unique by the task's id: at most once), and the holds of tasks that ended or never were.
   */
  async sweep(now: number): Promise<void> {
    const deps = this.#options.deps();
    try {
      for (const row of await deps.store.part(VIDEO_TASKS).unrecorded(now - RECORD_GRACE_MS, 100)) await recordSettled(deps, row, now);
      const dropped = await deps.store.part(VIDEO_TASKS).dropStrayHolds();
      if (dropped > 0) deps.logger.info({ dropped }, "released the holds of video tasks that had ended");
    } catch (err) {
      deps.logger.warn({ err }, 'the video task sweep failed; retrying later');
    }
  }

  /** Stops polling, lets a pass in progress end (its upstream reads cut), and gives every lease back. */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#stop.abort();
    await this.#running;
    await this.#options.deps().store.part(VIDEO_TASKS).releaseLease(this.#options.owner).catch(() => undefined);
  }
}

export { LEASE_MS as VIDEO_LEASE_MS };
