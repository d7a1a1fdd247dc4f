// The video feature's table (migrations.ts makes it): one row per task from its submission to its settlement.

import type { ColumnType } from 'kysely';
import type { EpochMsColumn, MoneyColumn } from '../../core/store/schema.js';

/** A video task (video-task-store.ts): its owner, the upstream's progress, its money and its poller's lease. */
export interface VideoTasksTable {
  /** The public id (video_... or task_...). */
  id: string;
  key_id: string;
  key_name: string;
  /** Null for an unmetered key. */
  account: string | null;
  group_name: string;
  channel: string;
  /** The upstream's task id; null while submitting. */
  upstream_id: string | null;
  model: string;
  upstream_model: string;
  /** openai | generations */
  shape: string;
  status: string;
  progress: ColumnType<number | string | bigint, number, number>;
  prompt: string | null;
  seconds: ColumnType<number | string | bigint | null, number | null, number | null>;
  size: string | null;
  result_url: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: EpochMsColumn;
  updated_at: EpochMsColumn;
  completed_at: ColumnType<number | string | bigint | null, number | null, number | null>;
  expires_at: EpochMsColumn;
  reserved: MoneyColumn;
  /** JSON array of {holdId, amount}, amount a decimal string (nano-units are past what a JSON number holds exactly). */
  holds: string;
  total_tokens: ColumnType<number | string | bigint | null, number | null, number | null>;
  cost: ColumnType<number | string | bigint | null, bigint | null, bigint | null>;
  settled_at: ColumnType<number | string | bigint | null, number | null, number | null>;
  next_poll_at: EpochMsColumn;
  polls: ColumnType<number | string | bigint, number, number>;
  /** The instance polling it; null when no one is. */
  lease_owner: ColumnType<string | null, string | null | undefined, string | null>;
  /** Epoch ms the lease runs to; past it, another instance may take it. */
  lease_until: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** The first 16 hex digits of the SHA-256 of the upstream key that made it; null while submitting. */
  key_fingerprint: string | null;
  /** When its usage record was written after its settlement; null until then. */
  recorded_at: ColumnType<number | string | bigint | null, number | null, number | null>;
  /** The prices its cost was computed with (pricing.version); null until settled, or when its model had no price. */
  price_version: string | null;
}

// A type, not an interface: Kysely's withTables takes a record type.
export type VideoTables = {
  video_tasks: VideoTasksTable;
};
