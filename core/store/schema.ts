// Kysely table types for the store, shared by every dialect: snake_case columns, epoch-ms integers, 0/1 booleans.
import type { ColumnType, Generated } from 'kysely';

/**
 * Epoch milliseconds in a BIGINT column. PostgreSQL drivers hand bigint back as a string (or a bigint),
 * so reads are typed loosely and narrowed once in row-codec.ts; writes are always plain numbers.
 */
export type EpochMsColumn = ColumnType<number | string | bigint, number, number>;

/** Booleans are stored as INTEGER 0/1: the one representation both SQLite and PostgreSQL accept. */
export type FlagColumn = ColumnType<number | string | bigint, number, number>;

export interface ApiKeysTable {
  id: string;
  name: string;
  group_name: string;
  prefix: string;
  hash: string;
  created_at: EpochMsColumn;
  revoked_at: ColumnType<number | string | bigint | null, number | null, number | null>;
}

export interface UsageRecordsTable {
  /** Insertion order, the tie-breaker when two records share a ts. */
  id: Generated<number | string | bigint>;
  request_id: string;
  ts: EpochMsColumn;
  key_id: string;
  key_name: string;
  group_name: string;
  route: string;
  model: string;
  upstream_model: string | null;
  channel: string | null;
  status: number;
  error_code: string | null;
  stream: FlagColumn;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  /** Null on the routes that make no images. */
  images: number | null;
  input_image_tokens: number | null;
  output_image_tokens: number | null;
  latency_ms: number;
  ttft_ms: number | null;
  aborted: FlagColumn;
}

export interface Database {
  api_keys: ApiKeysTable;
  usage_records: UsageRecordsTable;
}
