// The one Store interface: run-time keys and usage records. SQLite by default; PostgreSQL later, same contract.

/** One usage record per request that reached routing (bad input and auth failures write none). */
export interface UsageRecord {
  readonly requestId: string;
  /** Epoch milliseconds when the request arrived. */
  readonly ts: number;
  readonly keyId: string;
  readonly keyName: string;
  readonly group: string;
  readonly route: string;
  /** Client-visible model name. */
  readonly model: string;
  /** Model name sent upstream (differs when a channel aliases it); null when no channel was reached. */
  readonly upstreamModel: string | null;
  readonly channel: string | null;
  /** HTTP status the client received. */
  readonly status: number;
  /** GW_ERR_* code when the request failed, else null. */
  readonly errorCode: string | null;
  readonly stream: boolean;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
  /** Images made (the image endpoints; absent on the others). */
  readonly images?: number;
  /** Of promptTokens and completionTokens, the image tokens (the GPT image models report them; with `images`). */
  readonly inputImageTokens?: number;
  readonly outputImageTokens?: number;
  readonly latencyMs: number;
  /** Time to the first byte of the response body; null when none was sent. */
  readonly ttftMs: number | null;
  /** The client went away before the response completed. */
  readonly aborted: boolean;
}

export interface StoredKey {
  readonly id: string;
  readonly name: string;
  readonly group: string;
  /** First characters of the key, for display (`sk-AbCd`); never enough to use it. */
  readonly prefix: string;
  /** Hex SHA-256 of the whole key. */
  readonly hash: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

/** A key as created: not revoked yet. */
export type NewKey = Omit<StoredKey, 'revokedAt'>;

export interface UsageQuery {
  readonly requestId?: string;
  readonly limit?: number;
}

export interface Store {
  /** Applies pending schema migrations; idempotent. */
  migrate(): Promise<void>;
  /** Inserts all records in one transaction: all or none. */
  insertUsage(records: readonly UsageRecord[]): Promise<void>;
  /** Newest first. */
  listUsage(query?: UsageQuery): Promise<UsageRecord[]>;
  countUsage(): Promise<number>;
  createKey(key: NewKey): Promise<StoredKey>;
  findKeyByHash(hash: string): Promise<StoredKey | undefined>;
  listKeys(): Promise<StoredKey[]>;
  /** Revokes by id or by name; returns the revoked key, or undefined when none matched. */
  revokeKey(idOrName: string, at: number): Promise<StoredKey | undefined>;
  close(): Promise<void>;
}
