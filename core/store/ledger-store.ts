// Accounts, their ledger, and the balance instances hold for requests in flight. Every change of a balance is a
// ledger entry written in the same transaction (a balance always equals the sum of its ledger); holds are not
// ledger entries: they set money aside without moving it, and expire when the instance holding them stops
// renewing them (killed), so nothing stays held for a process that is gone.

import type { SpendCap } from '../config/resolved.js';

/** What a ledger entry does: money in (credit, refund), out (charge), or an operator's correction (either sign). */
export type LedgerKind = 'credit' | 'charge' | 'refund' | 'adjustment';

/** A balance stays within a signed 64-bit count of nano-units, with room for the charges of requests in flight. */
export const MAX_BALANCE = 9_000_000_000_000_000_000n;

/** A posting that would carry a balance past MAX_BALANCE: refused, nothing written. */
export class BalanceOverflowError extends Error {
  constructor(readonly account: string) {
    super(`account "${account}" would pass the largest balance the store holds`);
    this.name = 'BalanceOverflowError';
  }
}

/** A debit that would leave the balance below its entry's `floor`: refused, nothing written. */
export class BalanceBelowFloor extends Error {
  constructor(
    readonly account: string,
    /** The balance it found, nano-units. */
    readonly balance: bigint,
  ) {
    super(`account "${account}" has too little balance for this debit`);
    this.name = 'BalanceBelowFloor';
  }
}

/** createAccount() found the name taken (by an earlier create, or one racing it). */
export class AccountExists extends Error {
  constructor(
    readonly account: string,
    options?: ErrorOptions,
  ) {
    super(`account "${account}" already exists`, options);
  }
}

export interface Account {
  readonly name: string;
  readonly description: string | null;
  /** Nano-units: the sum of the account's ledger. */
  readonly balance: bigint;
  readonly createdAt: number;
  /** Its keys are refused (the operator disabled it in the console). */
  readonly disabled: boolean;
  /** The groups its users make keys in, as the operator set them in the console (gateway.yaml's add to them). */
  readonly keyGroups: readonly string[];
  /** Most all its keys together may spend, as the admin API set it (a declared account's is gateway.yaml's); absent: none. */
  readonly spendCap?: SpendCap;
}

/** The key_spend row an account's lifetime spend is counted in (every charge of its keys adds to it). */
export function accountSpendRow(account: string): string {
  return `account:${account}`;
}

export interface LedgerEntry {
  readonly id: number;
  readonly account: string;
  readonly kind: LedgerKind;
  /** Signed nano-units: a credit is positive, a charge negative. */
  readonly amount: bigint;
  /** Unique: an entry posted twice with the same key is applied once. */
  readonly idempotencyKey: string;
  readonly requestId: string | null;
  readonly keyId: string | null;
  readonly note: string | null;
  readonly ts: number;
}

export interface NewLedgerEntry {
  readonly account: string;
  readonly kind: LedgerKind;
  readonly amount: bigint;
  readonly idempotencyKey: string;
  readonly note?: string | null;
  readonly ts: number;
  /** For a negative amount: refused (BalanceBelowFloor) when the balance after it would be below this (an operator's debit: 0). */
  readonly floor?: bigint;
}

/** Whose money a hold sets aside: an account's balance, or what is left of a key's (or an account's) max_spend. */
export type Budget =
  | { readonly kind: 'account'; readonly account: string }
  | {
      readonly kind: 'key';
      /** The lifetime spend row: the key's id, or `account:<name>` (accountSpendRow) for an account's cap. */
      readonly keyId: string;
      readonly maxSpend: bigint;
      /** Set when the cap is an account's, over all its keys together (keyId is then its row): a refusal names it. */
      readonly account?: string;
      /**
       * A periodic cap's spend row (`<key id>@<period start, ISO>` in key_spend), absent for a lifetime cap. The
       * request is charged to the period it was admitted in: its draw carries this name, and the charge adds to that
       * row in the usage record's transaction, so the check (max_spend less the row, under its lock) stays exact.
       */
      readonly spendId?: string;
      /** When the period ends (epoch ms): a refusal says so. */
      readonly resetsAt?: number;
    };

/** A budget's name in the store's `holds.budget` and in an instance's leases: `account:<name>` or `key:<id>`. */
export function budgetName(budget: Budget): string {
  return budget.kind === 'account' ? `account:${budget.account}` : `key:${budget.spendId ?? budget.keyId}`;
}

/** A hold, with the budget it is of. */
export interface HeldBudget {
  readonly id: string;
  readonly budget: Budget;
}

/** What a renewal found: the holds renewed, and what each of their budgets has available (by budgetName). */
export interface Renewal {
  readonly renewed: ReadonlySet<string>;
  readonly available: ReadonlyMap<string, bigint>;
}

export interface HoldRequest {
  readonly budget: Budget;
  /** Refused when less than this is available. */
  readonly min: bigint;
  /** Granted at most this; as the budget nears zero the grant shrinks toward `min`, in steps of `min`. */
  readonly want: bigint;
  readonly owner: string;
  readonly now: number;
  readonly expiresAt: number;
}

export type HoldResult =
  | { readonly granted: true; readonly holdId: string; readonly amount: bigint }
  | { readonly granted: false; readonly available: bigint };

export interface AuditProblem {
  readonly what: string;
}

export interface LedgerStore {
  /** Creates the accounts that do not exist yet (gateway.yaml's, at start); existing ones are left as they are. */
  ensureAccounts(accounts: readonly { readonly name: string; readonly description: string | null }[], at: number): Promise<void>;
  /** Creates an account (with its max_spend, if given); throws when the name is taken. */
  createAccount(name: string, description: string | null, at: number, spendCap?: SpendCap): Promise<Account>;
  listAccounts(): Promise<Account[]>;
  getAccount(name: string): Promise<Account | undefined>;
  /** Newest first; with `beforeId`, the entries older than that one (a page after it). */
  listLedger(account: string, limit: number, beforeId?: number): Promise<LedgerEntry[]>;
  /** One entry of the account's ledger by its id; undefined when it has none of that id (another account's too). */
  ledgerEntry(account: string, id: number): Promise<LedgerEntry | undefined>;
  /** The charge named by `chargeId` (a usage record's `chargeId`, the charge's `requestId`); undefined when none. */
  chargeEntry(chargeId: string): Promise<LedgerEntry | undefined>;
  /** The document of one Pricing version (savePriceVersion's); undefined when the store has none of that version. */
  priceDocument(version: string): Promise<string | undefined>;
  /** Disables an account (its keys are refused) or enables it again; the account as it is now, or undefined when none. */
  setAccountDisabled(name: string, disabled: boolean): Promise<Account | undefined>;
  /** The names of the disabled accounts. */
  disabledAccounts(): Promise<string[]>;
  /** Sets (or with null clears) an account's max_spend; the account as it is now, or undefined when none. */
  setAccountSpendCap(name: string, cap: SpendCap | null): Promise<Account | undefined>;
  /** Sets the groups an account's users make keys in; the account as it is now, or undefined when none. */
  setAccountKeyGroups(name: string, groups: readonly string[]): Promise<Account | undefined>;
  /**
   * Appends an entry and moves the balance by its amount, in one transaction. An idempotency key already used
   * applies nothing and returns the entry it made (`applied` false); an unknown account throws.
   */
  post(entry: NewLedgerEntry): Promise<{ readonly entry: LedgerEntry; readonly applied: boolean }>;
  /** Sets money aside for `owner` if the budget has `min` available (balance less live holds); see HoldRequest. */
  acquireHold(request: HoldRequest): Promise<HoldResult>;
  /** Gives back `amount` of a hold (never below zero). */
  shrinkHold(holdId: string, amount: bigint): Promise<void>;
  /**
   * Deletes a hold its instance is done with (idle, every draw on it written): what it still held is free again, and
   * so is anything a late growth added after its last draw (growHold is not ordered with the record that draws).
   */
  releaseHold(holdId: string): Promise<void>;
  /**
   * Adds `amount` to a live hold of `budget`: a request cost more than its instance held for it, and the money past
   * the hold is counted as held at once (every instance's next admission sees it), until the request's record charges
   * it. Returns what the budget has available after it (its balance or cap, less every live hold): below zero, what
   * every instance still holds of it is more than it has, and none may admit on it any more.
   */
  growHold(holdId: string, budget: Budget, amount: bigint, now: number): Promise<bigint>;
  /**
   * Keeps the live holds of `owner` alive until `expiresAt` (deleting its empty ones it no longer names) and returns the ids renewed,
   * with what each of their budgets has available now (as growHold): a hold missing from them is gone (expired, and
   * dropped by another instance), and nothing may be admitted on it; a budget below zero admits on none of them.
   * A hold of `owner` not named (one its instance forgot) is left to expire.
   */
  renewHolds(owner: string, holds: readonly HeldBudget[], now: number, expiresAt: number): Promise<Renewal>;
  /** Deletes every hold of `owner` (a clean stop, once its charges are written). */
  releaseHolds(owner: string): Promise<void>;
  /** Deletes holds expired before `now` (their instance stopped renewing them). */
  dropExpiredHolds(now: number): Promise<number>;
  /** Nano-units an account has been charged in all (the sum of its ledger's charges). */
  chargedTotal(account: string): Promise<bigint>;
  /** Nano-units a key has been charged in all. */
  keySpend(keyId: string): Promise<bigint>;
  /** What each key has been charged in all, by id (a key never charged is absent): one query for a listing. */
  keySpends(keyIds: readonly string[]): Promise<Map<string, bigint>>;
  /** Keeps a Pricing version's document (once per version). */
  savePriceVersion(version: string, document: string, at: number): Promise<void>;
  priceVersions(): Promise<Map<string, string>>;
  /**
   * Every balance against the sum of its ledger, and every account's charges against the costs of the usage records
   * billed to it; the problems found (none: the books hold).
   */
  auditLedger(): Promise<AuditProblem[]>;
}
