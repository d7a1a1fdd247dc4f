// Video tasks: one row per task a caller made, from its submission to its settlement. A task is the
// gateway's (its public id, its key, its reserved and settled money); the upstream only runs it. Rows are polled by
// one instance at a time (a lease: `claimDue`, `claim`) and settled exactly once (`settle`, a compare-and-set on
// `settled_at`).

import type { HoldDraw } from '../../core/store/store.js';

/**
 * Where a task is: `submitting` until the upstream took it (a row left so by a crash expires), then Ark's states.
 * `succeeded`, `failed`, `cancelled` and `expired` are final.
 */
export type VideoTaskStatus = 'submitting' | 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'expired';

export const FINAL_TASK_STATUSES: ReadonlySet<VideoTaskStatus> = new Set<VideoTaskStatus>(['succeeded', 'failed', 'cancelled', 'expired']);

/** Which client API made the task (its answers' shape). */
export type VideoTaskShape = 'openai' | 'generations';

export interface VideoTaskRow {
  /** The public id (`video_...` or `task_...`): never the upstream's. */
  readonly id: string;
  readonly keyId: string;
  readonly keyName: string;
  /** The account billed; null for an unmetered key. */
  readonly account: string | null;
  readonly group: string;
  readonly channel: string;
  /** Ark's task id; null while submitting. */
  readonly upstreamId: string | null;
  /** The client's model name. */
  readonly model: string;
  readonly upstreamModel: string;
  readonly shape: VideoTaskShape;
  readonly status: VideoTaskStatus;
  /** 0-100. */
  readonly progress: number;
  /** The client's prompt (OpenAI's video object carries it), at most 4,000 characters kept. */
  readonly prompt: string | null;
  /** Seconds of video asked for (or made, once known). */
  readonly seconds: number | null;
  /** `WIDTHxHEIGHT` or Ark's resolution (`720p`), as asked. */
  readonly size: string | null;
  /** The upstream's file URL once succeeded (never shown to callers: they download through the gateway). */
  readonly resultUrl: string | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** When it reached a final status. */
  readonly completedAt: number | null;
  /** Unfinished by then, it expires (its reservation released). */
  readonly expiresAt: number;
  /** Nano-units set aside at submission (0 for an unmetered key). */
  readonly reserved: bigint;
  /** The holds that set them aside (owner `task:<id>`), one per budget. */
  readonly holds: readonly HoldDraw[];
  /** `usage.total_tokens` once succeeded. */
  readonly totalTokens: number | null;
  /** What it was charged once settled (0 when it failed); null until then. */
  readonly cost: bigint | null;
  /** When it was settled: set once, by whichever instance saw the end first. */
  readonly settledAt: number | null;
  /** When a poller reads it next. */
  readonly nextPollAt: number;
  /** How many times it was read (the poll interval backs off with it). */
  readonly polls: number;
  /**
   * Which of its channel's upstream keys made it (the first 16 hex digits of the key's SHA-256): it is read, cancelled
   * and downloaded with that key, since a channel's keys may belong to different Ark projects. Null while submitting.
   */
  readonly keyFingerprint: string | null;
  /** When its usage record (its charge) was written after it was settled; null until then. */
  readonly recordedAt: number | null;
  /** The prices `cost` was computed with (pricing.version; the audit computes it again); null when its model had none. */
  readonly priceVersion: string | null;
}

/** What a poll or a submission changes (only while the task is unsettled). */
export interface VideoTaskPatch {
  readonly upstreamId?: string;
  /** The channel that took the task (another than planned when the first was unavailable), and its model name. */
  readonly channel?: string;
  readonly upstreamModel?: string;
  readonly keyFingerprint?: string;
  /** What was set aside, once the holds were taken (the row is written before them). */
  readonly reserved?: bigint;
  readonly holds?: readonly HoldDraw[];
  readonly status?: Exclude<VideoTaskStatus, 'succeeded' | 'failed' | 'cancelled' | 'expired'>;
  readonly progress?: number;
  readonly nextPollAt?: number;
  readonly polls?: number;
  readonly updatedAt: number;
}

/** A task's end: applied once (settle), with its cost. */
export interface VideoTaskSettlement {
  readonly status: 'succeeded' | 'failed' | 'cancelled' | 'expired';
  readonly progress: number;
  readonly resultUrl: string | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly totalTokens: number | null;
  readonly seconds: number | null;
  readonly cost: bigint;
  /** The prices `cost` was computed with; null when the model had none. */
  readonly priceVersion: string | null;
  readonly at: number;
}

/**
 * A page of a key's tasks, by keyset: after the task `after` (its id) in the order asked. `after` must be one of the
 * key's own tasks; any other id (unknown, or another key's) gives an empty page.
 */
export interface KeyTaskQuery {
  readonly keyId: string;
  readonly after?: string;
  readonly limit: number;
  /** Newest first when false. */
  readonly ascending: boolean;
}

export interface VideoTaskStore {
  /**
   * Writes a new task; with `lease`, leased to its submitter until then (no poller reads a task being submitted: its
   * upstream id is not known yet).
   */
  addTask(row: VideoTaskRow, lease?: { readonly owner: string; readonly until: number }): Promise<void>;
  /** Deletes a task refused before anything was sent (unsettled, no upstream id); whether it did. */
  discardTask(id: string): Promise<boolean>;
  task(id: string): Promise<VideoTaskRow | undefined>;
  /** Changes an unsettled task; false when it is settled (or unknown). */
  updateTask(id: string, patch: VideoTaskPatch): Promise<boolean>;
  /**
   * Settles an unsettled task: its final status, result and cost, `settled_at` set, its lease cleared, and its holds
   * (owner `task:<id>`) deleted, all in one transaction. True for the one call that did it; false for every other
   * (already settled, by this instance or another), which deletes no hold.
   */
  settleTask(id: string, settlement: VideoTaskSettlement): Promise<boolean>;
  /** Notes that the settled task's usage record is written (its charge made). */
  markRecorded(id: string, at: number): Promise<void>;
  /**
   * Settled tasks that reached an upstream and whose usage record is not noted as written, settled at or before
   * `before` (oldest first, at most `limit`): their records are written again (unique by task id: at most once).
   */
  unrecorded(before: number, limit: number): Promise<VideoTaskRow[]>;
  /**
   * Deletes holds of tasks (owner `task:<id>`) whose task is settled or missing: what a settlement's release or a
   * submission's refusal left behind (a crash between two steps). How many.
   */
  dropStrayHolds(): Promise<number>;
  /**
   * Leases up to `limit` unsettled tasks due (`next_poll_at <= now`) whose lease is free or expired (`lease_until <
   * now`; `owner`'s own unexpired leases too are left alone) to `owner` until `leaseUntil`, and returns them, the
   * earliest due first; on PostgreSQL rows another instance is claiming are skipped (FOR UPDATE SKIP
   * LOCKED), so two pollers never read the same task at once.
   */
  claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<VideoTaskRow[]>;
  /**
   * Leases one unsettled task to `owner` (a client's GET refreshing it) if its lease is free, expired (`lease_until <
   * now`) or already `owner`'s (then extended to `leaseUntil`); whether it did.
   */
  claimTask(id: string, owner: string, now: number, leaseUntil: number): Promise<boolean>;
  /** Gives up `owner`'s lease on a task (or on all its tasks without `id`: a clean stop). */
  releaseLease(owner: string, id?: string): Promise<void>;
  /** A key's tasks, a page, in creation order (ties by id). */
  keyTasks(query: KeyTaskQuery): Promise<VideoTaskRow[]>;
  /** An account's tasks (null: the unmetered keys'), newest first, and how many in all; `keyId` narrows to one key. */
  accountTasks(account: string | null, page: { readonly offset: number; readonly limit: number; readonly keyId?: string }): Promise<{
    readonly rows: readonly VideoTaskRow[];
    readonly total: number;
  }>;
}
