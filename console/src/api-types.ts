// The shapes of /console/api's answers (schemas/console/*.response.schema.json). Money is a decimal string, times are ISO strings (UTC).

export interface User {
  readonly name: string;
  readonly account: string | null;
  readonly operator: boolean;
}

export interface Limits {
  readonly rpm?: number;
  readonly tpm?: number;
  readonly concurrency?: number;
}

export interface Group {
  readonly name: string;
  readonly models: readonly string[];
  readonly limits: Limits;
}

export interface Session {
  readonly user: User;
  readonly csrf: string;
  /** The groups this user may create keys in (every group for the operator); absent from a sign-in's answer. */
  readonly groups?: readonly Group[];
}

export interface List<T> {
  readonly object: 'list';
  readonly data: readonly T[];
}

export interface Page<T> extends List<T> {
  readonly next_cursor: string | null;
}

export interface UsageSums {
  readonly requests: number;
  readonly errors: number;
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cached_tokens: number;
  readonly reasoning_tokens: number;
  readonly images: number;
  readonly cost: string;
}

/** One model's (or key's) share of each bucket, aligned with `series`; cost as decimal strings, tokens in + out. */
export interface SplitSeries {
  readonly cost: readonly string[];
  readonly tokens: readonly number[];
}

export interface Dashboard {
  readonly account: string | null;
  readonly currency: string;
  readonly balance: string | null;
  readonly spend_today: string;
  readonly spend_month: string;
  readonly range: { readonly from: string; readonly to: string; readonly bucket: 'hour' | 'day' };
  readonly totals: UsageSums;
  readonly series: readonly (UsageSums & { readonly t: string })[];
  readonly by_model: readonly (UsageSums & { readonly model: string })[];
  readonly by_key: readonly (UsageSums & { readonly key_id: string; readonly name: string | null })[];
  /** The top 5 by cost, then (when there are more) one entry named "other" (key_id "other"). */
  readonly split: {
    readonly by_model: readonly (SplitSeries & { readonly name: string })[];
    readonly by_key: readonly (SplitSeries & { readonly key_id: string; readonly name: string | null })[];
  };
}

export type KeyStatus = 'active' | 'disabled' | 'expired' | 'revoked';

export interface Key {
  readonly id: string;
  readonly name: string;
  readonly group: string;
  readonly prefix: string;
  /** null for a key declared in gateway.yaml. */
  readonly created_at: string | null;
  readonly revoked_at: string | null;
  /** Absent for an unmetered key. */
  readonly account?: string;
  /** Absent when the key has no cap. */
  readonly max_spend?: string;
  /** Absent when the key has none of its own. */
  readonly limits?: Limits;
  readonly enabled: boolean;
  readonly expires_at: string | null;
  readonly models: readonly string[] | null;
  readonly ips: readonly string[] | null;
  /** Declared in gateway.yaml: read-only here (the API refuses edits and revocations with 409). */
  readonly declared: boolean;
  readonly status: KeyStatus;
  readonly last_used_at: string | null;
  readonly spend: string;
  readonly max_spend_left: string | null;
}

export interface CreatedKey extends Key {
  /** The secret: shown once, never again. */
  readonly key: string;
}

export interface UsageRow {
  readonly request_id: string;
  readonly time: string;
  readonly account: string | null;
  readonly key_id: string;
  readonly key_name: string;
  readonly route: string;
  readonly model: string;
  readonly channel: string | null;
  readonly status: number;
  readonly error_code: string | null;
  readonly stream: boolean;
  readonly input_tokens: number;
  readonly cached_tokens: number;
  readonly cache_write_tokens: number;
  readonly output_tokens: number;
  readonly reasoning_tokens: number;
  readonly images: number;
  readonly cost: string | null;
  readonly latency_ms: number;
  readonly ttft_ms: number | null;
}

export interface UsagePage extends Page<UsageRow> {
  readonly totals: UsageSums & { readonly cache_write_tokens: number };
}

export interface LedgerEntry {
  readonly id: number;
  readonly created_at: string;
  /** On the ledger page's entries; not in a credit's answer (its account is beside it). */
  readonly account?: string;
  readonly kind: 'credit' | 'charge' | 'refund' | 'adjustment';
  readonly amount: string;
  readonly note: string | null;
  readonly request_id: string | null;
  readonly key_id: string | null;
}

export interface LedgerPage extends Page<LedgerEntry> {
  readonly account: string;
  readonly currency: string;
}

export interface Account {
  readonly name: string;
  readonly description: string | null;
  readonly balance: string;
  readonly currency: string;
  readonly created_at: string;
  readonly disabled: boolean;
  /** Where its users may make keys: file_groups and console_groups together. */
  readonly groups: readonly string[];
  /** From gateway.yaml's accounts[].groups: the console cannot remove them. */
  readonly file_groups: readonly string[];
  /** Those the operator set in the console (what a PATCH's `groups` replaces). */
  readonly console_groups: readonly string[];
}

export interface Credited {
  readonly account: Account;
  readonly entry: LedgerEntry;
  /** False when this idempotency key had already credited: nothing was added twice. */
  readonly applied: boolean;
}

export interface AccountUser {
  readonly user: { readonly name: string; readonly account: string };
  /** A path ("/console/#/password/<token>"): the page shows it as a full URL. */
  readonly link: string;
  readonly link_expires_at: string;
}

export interface Channel {
  readonly name: string;
  readonly type: string;
  readonly priority: number;
  readonly models: readonly string[];
  readonly cooling: boolean;
  readonly cooldown_left_ms: number;
  /** On the instance that answered. */
  readonly in_flight: number;
  /** Fleet-wide requests this channel served since the list's `since` (from the hourly sums). */
  readonly last_hour: {
    readonly requests: number;
    readonly errors: number;
    readonly error_rate: number;
    readonly avg_latency_ms: number | null;
  };
  /** The answering instance's upstream attempts in the last window_minutes, failed ones included even when another channel then served the request. */
  readonly attempts: {
    readonly window_minutes: number;
    readonly attempts: number;
    readonly failures: number;
    readonly failure_rate: number;
  };
}

export interface ChannelList extends List<Channel> {
  /** The start of the previous clock hour: last_hour's sums start there. */
  readonly since: string;
}

export interface Instance {
  readonly id: string;
  readonly self: boolean;
}

/** Both null when the gateway was not started from a file. */
export interface RunningConfig {
  readonly path: string | null;
  readonly yaml: string | null;
}

export interface Reloaded {
  readonly reloaded: boolean;
  readonly message: string;
}
