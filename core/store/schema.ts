// Kysely table types for the store, shared by every dialect: snake_case columns, epoch-ms integers, 0/1 booleans.
import type { ColumnType, Generated } from 'kysely';

/**
 * Epoch milliseconds in a BIGINT column. PostgreSQL drivers hand bigint back as a string (or a bigint),
 * so reads are typed loosely and narrowed once in row-codec.ts; writes are always plain numbers.
 */
export type EpochMsColumn = ColumnType<number | string | bigint, number, number>;

/** Booleans are stored as INTEGER 0/1: the one representation both SQLite and PostgreSQL accept. */
export type FlagColumn = ColumnType<number | string | bigint, number, number>;

/** A sum in a BIGINT column: written as a number, read back loosely and narrowed in row-codec.ts. */
export type CountColumn = ColumnType<number | string | bigint, number, number>;

/** Nano-units in a BIGINT column: written as bigint, read back loosely (a driver may give a string) and narrowed in row-codec.ts. */
export type MoneyColumn = ColumnType<number | string | bigint, bigint, bigint>;

export interface ApiKeysTable {
  id: string;
  name: string;
  group_name: string;
  prefix: string;
  hash: string;
  created_at: EpochMsColumn;
  revoked_at: ColumnType<number | string | bigint | null, number | null, number | null>;
  account: ColumnType<string | null, string | null | undefined, string | null>;
  max_spend: ColumnType<number | string | bigint | null, bigint | null | undefined, bigint | null>;
  /** 'day', 'week' or 'month': max_spend resets each such calendar period (null: a lifetime cap). */
  spend_period: ColumnType<string | null, string | null | undefined, string | null>;
  /** The IANA zone whose midnight starts a spend_period (null with it: UTC). */
  spend_timezone: ColumnType<string | null, string | null | undefined, string | null>;
  /** The key's own rate limits (null: its group's apply). */
  rpm_limit: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  tpm_limit: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  concurrency_limit: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** Its own limits.tokens_per_day: tokens, period (null: day) and zone (null: UTC); null tokens: its group's apply. */
  tpd_limit: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  tpd_period: ColumnType<string | null, string | null | undefined, string | null>;
  tpd_timezone: ColumnType<string | null, string | null | undefined, string | null>;
  /** Epoch ms after which the key is refused (null: never). */
  expires_at: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** 1: refused until enabled again (null or 0: enabled). */
  disabled: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** JSON array of model names or globs, a subset of the group's (null: the group's). */
  allowed_models: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON array of CIDRs the key may be used from (null: anywhere). */
  allowed_ips: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** Seconds of timed output charged at per_second; null on records of other work. */
  seconds: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  latency_ms: number;
  ttft_ms: number | null;
  aborted: FlagColumn;
  /** Nano-units; null when no price applied (no quota plugin on the route). */
  cost: ColumnType<number | string | bigint | null, bigint | null | undefined, bigint | null>;
  price_version: ColumnType<string | null, string | null | undefined, string | null>;
  /** The account charged; null for an unmetered key. */
  account: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1 when the output tokens were estimated (a stream that ended before the upstream reported them). */
  usage_estimated: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** JSON array of the upstream attempts ({channel, status, error, latency_ms}); null for one attempt that succeeded. */
  attempts: ColumnType<string | null, string | null | undefined, string | null>;
  /** The message of the error the client got (the gateway's words, keys scrubbed); null when none. */
  error_message: ColumnType<string | null, string | null | undefined, string | null>;
  /** The request id naming the ledger charge that covers this record (ledger.request_id); null when uncharged. */
  charge_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** What the request made or acted on, `<kind>:<id>` (request-slots.ts SUBJECT); null for most. */
  subject: ColumnType<string | null, string | null | undefined, string | null>;
  /** The period spend rows its charge added to (period-spends.ts), space-separated; null for none, and before 0028. */
  spend_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Usage summed per hour, account, key, model and channel (store/usage-hourly.ts): what dashboards read. */
export interface UsageHourlyTable {
  /** Epoch ms of the hour's start. */
  hour: EpochMsColumn;
  /** '' for an unmetered key. */
  account: string;
  key_id: string;
  model: string;
  /** '' when no channel was reached. */
  channel: string;
  requests: CountColumn;
  errors: CountColumn;
  prompt_tokens: CountColumn;
  completion_tokens: CountColumn;
  cached_tokens: CountColumn;
  cache_write_tokens: CountColumn;
  reasoning_tokens: CountColumn;
  images: CountColumn;
  cost: MoneyColumn;
  latency_ms: CountColumn;
}

export interface ConsoleUsersTable {
  id: string;
  name: string;
  account: string | null;
  password_hash: string | null;
  created_at: EpochMsColumn;
  disabled: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
}

export interface ConsoleSessionsTable {
  token_hash: string;
  user_id: string;
  csrf: string;
  created_at: EpochMsColumn;
  expires_at: EpochMsColumn;
  ended_at: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** 0021: what the user's own session list names a session by (never its token's digest); null before 0021. */
  id: string | null;
  /** 0021: the address and user agent it signed in from, and when it was last used (at most a minute stale). */
  address: string | null;
  user_agent: string | null;
  last_seen_at: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
}

export interface ConsoleLinksTable {
  token_hash: string;
  user_id: string;
  created_at: EpochMsColumn;
  expires_at: EpochMsColumn;
  used_at: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
}

export interface AccountsTable {
  name: string;
  description: string | null;
  balance: MoneyColumn;
  created_at: EpochMsColumn;
  /** 1: its keys are refused (null or 0: enabled). */
  disabled: ColumnType<number | string | bigint | null, number | null | undefined, number | null>;
  /** JSON array of the group names its users make keys in (null: none but gateway.yaml's). */
  key_groups: ColumnType<string | null, string | null | undefined, string | null>;
  /** Most all its keys together may spend, nano-units (null: no cap); its spend is key_spend's `account:<name>` row. */
  max_spend: ColumnType<number | string | bigint | null, bigint | null | undefined, bigint | null>;
  /** 'day', 'week' or 'month': max_spend resets each such calendar period (null: a lifetime cap). */
  spend_period: ColumnType<string | null, string | null | undefined, string | null>;
  /** The IANA zone whose midnight starts a spend_period (null with it: UTC). */
  spend_timezone: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface LedgerTable {
  id: Generated<number | string | bigint>;
  account: string;
  /** credit | charge | refund | adjustment */
  kind: string;
  /** Signed: a credit adds, a charge subtracts. */
  amount: MoneyColumn;
  idempotency_key: string;
  request_id: string | null;
  key_id: string | null;
  note: string | null;
  ts: EpochMsColumn;
}

export interface HoldsTable {
  id: string;
  budget: string;
  amount: MoneyColumn;
  owner: string;
  expires_at: EpochMsColumn;
}

export interface KeySpendTable {
  key_id: string;
  spent: MoneyColumn;
}

export interface PriceVersionsTable {
  version: string;
  document: string;
  created_at: EpochMsColumn;
}

/** What the records usage.retention_days pruned cost, per account (the audit adds it to the records kept). */
export interface UsagePrunedTable {
  account: string;
  cost: ColumnType<number | string | bigint, bigint, bigint>;
  records: ColumnType<number | string | bigint, number, number>;
}

/**
 * What a period spend row's records cost that are not in usage_records (pruned by usage.retention_days, or written
 * before records named their rows: migration 0028), per row id; the audit adds it to the records kept.
 */
export interface UsagePrunedSpendTable {
  spend_id: string;
  cost: ColumnType<number | string | bigint, bigint, bigint>;
}

export interface Database {
  api_keys: ApiKeysTable;
  usage_records: UsageRecordsTable;
  usage_hourly: UsageHourlyTable;
  usage_pruned: UsagePrunedTable;
  usage_pruned_spend: UsagePrunedSpendTable;
  console_users: ConsoleUsersTable;
  console_sessions: ConsoleSessionsTable;
  console_links: ConsoleLinksTable;
  accounts: AccountsTable;
  ledger: LedgerTable;
  holds: HoldsTable;
  key_spend: KeySpendTable;
  price_versions: PriceVersionsTable;
}
