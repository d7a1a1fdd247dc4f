// The process's video task poller: every tick it leases the unsettled tasks that are due (video-task-store.ts's
// claimDue: one instance at a time per task, PostgreSQL's FOR UPDATE SKIP LOCKED across instances), reads each from
// its upstream (refresh.ts) and gives the lease back. Tasks live in the store, so a restart (or another instance)
// picks up what a stopped one left: a clean stop gives its leases back at once, a killed one's expire.

import type { VideoTaskRow } from '../store/video-task-store.js';
import { refreshTask } from './refresh.js';
import type { VideoDeps } from './video-deps.js';

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

export class VideoPoller {
  readonly #options: VideoPollerOptions;
  readonly #stop = new AbortController();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(options: VideoPollerOptions) {
    this.#options = options;
  }

  start(): void {
    const tick = this.#options.tickMs ?? Math.min(1000, this.#options.deps().config.video.pollIntervalMs);
    this.#timer = setInterval(() => {
      if (this.#running === null) this.#running = this.poll().then(
        () => undefined,
        () => undefined,
      ).finally(() => (this.#running = null));
    }, tick);
    this.#timer.unref();
  }

  /** One pass: every due task leased now is read once. */
  async poll(): Promise<number> {
    const deps = this.#options.deps();
    const now = (this.#options.now ?? Date.now)();
    let rows: VideoTaskRow[];
    try {
      rows = await deps.store.videoTasks.claimDue(this.#options.owner, now, now + LEASE_MS, this.#options.batch ?? 16);
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
          await deps.store.videoTasks.releaseLease(this.#options.owner, row.id).catch(() => undefined);
        }
      }),
    );
    return rows.length;
  }

  /** Stops polling, lets a pass in progress end (its upstream reads cut), and gives every lease back. */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#stop.abort();
    await this.#running;
    await this.#options.deps().store.videoTasks.releaseLease(this.#options.owner).catch(() => undefined);
  }
}

export { LEASE_MS as VIDEO_LEASE_MS };
