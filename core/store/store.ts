// The Store, split by concern: run-time keys (KeyStore), usage records with their charges (UsageStore), and accounts,
// their ledger and the balance instances hold (LedgerStore, store.ledger). SQLite by default, PostgreSQL for several instances;
// one contract, one query layer (kysely-store.ts), and one test suite run against both.

import type { Slot } from '../slot.js';
import type { ConsoleStore } from './console-store.js';
import type { LedgerStore } from './ledger-store.js';
import type { PeriodSpends } from './period-spends.js';
import type { UsageFilter, UsageLogQuery, UsageLogRow, UsageTotals } from './usage-log.js';
import type { ResolvedLimits, SpendCap, SpendPeriod } from '../config/resolved.js';

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
  /** Seconds of timed output made (a generated clip's; absent on the other routes), charged at per_second. */
  readonly seconds?: number;
  readonly latencyMs: number;
  /** Time to the first byte of the response body; null when none was sent. */
  readonly ttftMs: number | null;
  /** The client went away before the response completed. */
  readonly aborted: boolean;
  /** What the request cost, in nano-units (core/money); absent when no price applied (no quota plugin). */
  readonly cost?: bigint;
  /** The Pricing version `cost` was computed with (the store keeps each version's prices). */
  readonly priceVersion?: string;
  /** The account charged `cost`; absent for an unmetered key (its cost is recorded, not charged). */
  readonly account?: string;
  /** Output tokens were estimated from what was delivered (a stream cut before the upstream reported them). */
  readonly usageEstimated?: boolean;
  /**
   * The upstream attempts, in order: present only when there was more than one, or one failed (the usual single
   * success costs nothing to record).
   */
  readonly attempts?: readonly UsageAttempt[];
  /** The message of the error the client got (GatewayError's, keys scrubbed); absent when none. */
  readonly errorMessage?: string;
  /**
   * The request id naming the ledger charge that covers this record (the charge's `requestId`): set by the store
   * when it writes the charge, never by the caller.
   */
  readonly chargeId?: string;
  /** What the request made or acted on, `<kind>:<id>` (a task it started, a thing it stored); absent for most. */
  readonly subject?: string;
  /**
   * Balance held for this request (a hold of this instance's lease, per budget) that the charge uses up: the
   * holds shrink by these amounts in the transaction that writes the record. Not stored.
   */
  readonly draws?: readonly HoldDraw[];
}

/** One upstream attempt of a request (the relay's). */
export interface UsageAttempt {
  readonly channel: string;
  /** The upstream's HTTP status; null when none came (a connect error, a timeout, a request it could not be sent). */
  readonly status: number | null;
  /** Why it failed (a reason such as `timeout`, or `status_503`); null for the attempt that answered. */
  readonly error: string | null;
  /** From the call to its answer's headers (or its failure), whole ms. */
  readonly latencyMs: number;
}

export interface HoldDraw {
  readonly holdId: string;
  readonly amount: bigint;
  /** The period spend row (Budget's spendId) the charge adds to, for a hold of a periodic cap. */
  readonly spendId?: string;
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
  /** The account that pays for this key (metered); absent: unmetered. */
  readonly account?: string;
  /** Most the key may spend in all (or per spendPeriod), nano-units; absent: no cap. */
  readonly maxSpend?: bigint;
  /** The calendar period maxSpend is per; absent: a lifetime cap. */
  readonly spendPeriod?: SpendPeriod;
  /** Its own rate limits, over its group's; absent: its group's apply. */
  readonly limits?: ResolvedLimits;
  /** Epoch ms from which it is refused; absent: never. */
  readonly expiresAt?: number;
  /** Refused until enabled again. */
  readonly disabled?: true;
  /** The models it may call (names or globs, within its group's); absent: its group's. */
  readonly models?: readonly string[];
  /** The addresses it may be used from (CIDRs); absent: any. */
  readonly ips?: readonly string[];
}

/** A key as its lookup finds it: with its account's max_spend (over all the account's keys), when it has one. */
export type FoundKey = StoredKey & { readonly accountCap?: SpendCap };

/** A key as created: not revoked yet. */
export type NewKey = Omit<StoredKey, 'revokedAt'>;

/** What an edit changes; `null` clears a setting, an absent field keeps it. */
export interface KeyPatch {
  readonly name?: string;
  readonly maxSpend?: bigint | null;
  /** Set with maxSpend: its period, or null for a lifetime cap (and with maxSpend null). */
  readonly spendPeriod?: SpendPeriod | null;
  readonly limits?: ResolvedLimits | null;
  readonly expiresAt?: number | null;
  readonly disabled?: boolean;
  readonly models?: readonly string[] | null;
  readonly ips?: readonly string[] | null;
}

export interface UsageQuery {
  readonly requestId?: string;
  readonly limit?: number;
}

export interface KeyStore {
  createKey(key: NewKey): Promise<StoredKey>;
  findKeyByHash(hash: string): Promise<FoundKey | undefined>;
  listKeys(): Promise<StoredKey[]>;
  /** Revokes by id or by name; returns the revoked key, or undefined when none matched. */
  revokeKey(idOrName: string, at: number): Promise<StoredKey | undefined>;
  /** Edits a key by id or by name (a revoked one stays revoked); returns it as it is now, or undefined when none matched. */
  updateKey(idOrName: string, patch: KeyPatch): Promise<StoredKey | undefined>;
}

/** Which hourly sums to read: hours from `from` (inclusive) to `to` (exclusive), epoch ms. */
export interface HourlyQuery {
  readonly from: number;
  readonly to: number;
  /** One account's keys only. */
  readonly account?: string;
  /** One key only. */
  readonly keyId?: string;
  /**
   * Sums per bucket of this many ms (each hour in the bucket its start rounds down to, UTC), account, key and model,
   * the channels together (`channel` null); absent: the hourly rows as stored.
   */
  readonly bucketMs?: number;
}

/** One hour's sums for an account, key, model and channel (store/usage-hourly.ts). */
export interface HourlyUsage {
  readonly hour: number;
  /** null for an unmetered key. */
  readonly account: string | null;
  readonly keyId: string;
  readonly model: string;
  /** null when no channel was reached. */
  readonly channel: string | null;
  readonly requests: number;
  readonly errors: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
  readonly images: number;
  /** Nano-units. */
  readonly cost: bigint;
  readonly latencyMs: number;
}

export interface UsageStore {
  /**
   * Inserts all records in one transaction, all or none. A record with a cost is unique by request id (written
   * again, it is left out: a request is recorded and charged once); one with an account is charged in the same
   * transaction: one ledger charge per account for the batch's records, the balance, the key's spend, and the
   * holds the records draw on.
   */
  insertUsage(records: readonly UsageRecord[]): Promise<void>;
  /** The hourly sums the records were added to (with them, in the same transaction), oldest hour first. */
  hourlyUsage(query: HourlyQuery): Promise<HourlyUsage[]>;
  /** What those hours cost in all, nano-units (`bucketMs` ignored): one sum, no rows. */
  hourlyCost(query: HourlyQuery): Promise<bigint>;
  /** Newest first. */
  listUsage(query?: UsageQuery): Promise<UsageRecord[]>;
  /** The records one ledger charge covers (by the request id naming it: the charge's `requestId`), oldest first, after row `afterId`. */
  chargedUsage(chargeId: string, limit: number, afterId?: number): Promise<{ readonly id: number; readonly record: UsageRecord }[]>;
  countUsage(): Promise<number>;
  /** A page of the usage log (store/usage-log.ts): newest first, by keyset. */
  usageLog(query: UsageLogQuery): Promise<UsageLogRow[]>;
  /** The sums of every record `filter` matches. */
  usageTotals(filter: UsageFilter): Promise<UsageTotals>;
  /** Each key's newest record's time, by key id (keys never used are absent). */
  lastUsed(keyIds: readonly string[]): Promise<Map<string, number>>;
  /** The records that carry a cost, in the order written, after row `afterId` (0: from the first); for the audit. */
  pricedUsage(afterId: number, limit: number): Promise<{ readonly id: number; readonly record: UsageRecord }[]>;
  /**
   * Deletes up to `limit` records older than `before` (oldest first) in one transaction, adding what they cost to
   * their accounts' pruned sums (usage_pruned) and period rows' (usage_pruned_spend) in it; how many went. Their hourly
   * sums stay. Several instances may prune at once: each adds only what its own DELETE removed (PostgreSQL: a batch
   * locked as taken, another pruner's locked rows passed over).
   */
  pruneUsage(before: number, limit: number): Promise<number>;
  /** The period spend rows, and what the records naming them cost (kept, and pruned); for the audit (period-spends.ts). */
  periodSpends(): Promise<PeriodSpends>;
  /**
   * Deletes up to `limit` period spend rows (`<id>@<ISO start>`) whose period started before `before`, with their
   * pruned sums, in one transaction; a full batch returns `limit` (ask again).
   */
  prunePeriodRows(before: number, limit: number): Promise<number>;
}

/** What the audit reads (core/money/audit.ts), every read from one snapshot of the store (Store.readBooks). */
export interface BooksView {
  readonly ledger: Pick<LedgerStore, 'auditLedger' | 'priceVersions' | 'listAccounts'>;
  pricedUsage: UsageStore['pricedUsage'];
  periodSpends: UsageStore['periodSpends'];
}

/**
 * The whole store. Keys and usage are read and written through their own narrow interfaces (the key ring takes a
 * KeyStore, the usage writer a UsageStore); the money is its own object, `ledger`.
 */
export interface Store extends KeyStore, UsageStore {
  readonly ledger: LedgerStore;
  readonly console: ConsoleStore;
  /** A feature's part of the store (store-part.ts), by its slot; throws for one the store was not opened with. */
  part<T>(slot: Slot<T>): T;
  /**
   * Runs `read` over one consistent snapshot of the books (read-snapshot.ts: PostgreSQL's REPEATABLE READ, read-only;
   * SQLite's one transaction): a charge or a pruning committed meanwhile is wholly seen or not at all.
   */
  readBooks<T>(read: (books: BooksView) => Promise<T>): Promise<T>;
  /** Applies pending schema migrations; idempotent. */
  migrate(): Promise<void>;
  /** One round trip to the database (readiness: it answers); throws when it does not. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
