// What the top-up feature keeps: batches of codes, each code's digest and its redemption. A redemption claims its
// code and writes its ledger credit in one transaction (kysely-topup.ts), so a code credits exactly once whatever
// instances race for it.

import type { LedgerEntry } from '../../core/store/ledger-store.js';

export interface TopupBatch {
  readonly id: string;
  /** Nano-units each code credits. */
  readonly amount: bigint;
  readonly count: number;
  readonly note: string | null;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly disabledAt: number | null;
}

/** A batch with what became of its codes. */
export interface TopupBatchSummary extends TopupBatch {
  readonly redeemed: number;
  /** Codes disabled one by one (a disabled batch's are all refused, whatever this says). */
  readonly disabledCodes: number;
}

export type CodeStatus = 'active' | 'redeemed' | 'disabled' | 'expired';

export interface TopupCode {
  readonly id: string;
  readonly batchId: string;
  readonly last4: string;
  readonly amount: bigint;
  readonly createdAt: number;
  /** The batch's. */
  readonly expiresAt: number | null;
  readonly disabledAt: number | null;
  readonly batchDisabledAt: number | null;
  readonly redeemedAt: number | null;
  readonly redeemedBy: string | null;
  readonly redeemedAccount: string | null;
  readonly ledgerEntryId: number | null;
}

export interface NewBatch {
  readonly id: string;
  readonly amount: bigint;
  readonly note: string | null;
  readonly idempotencyKey: string;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  /** Each code's id, digest and last four characters. */
  readonly codes: readonly { readonly id: string; readonly hash: string; readonly last4: string }[];
}

export interface CodeFilter {
  readonly batchId?: string;
  readonly status?: CodeStatus;
  /** Redeemed into this account. */
  readonly account?: string;
}

export interface Redeemer {
  readonly account: string;
  /** The console user's name. */
  readonly user: string;
}

export type Redemption =
  | { readonly outcome: 'redeemed'; readonly code: TopupCode; readonly entry: LedgerEntry }
  | { readonly outcome: 'unknown' | 'used' | 'expired' | 'disabled' };

export interface TopupStore {
  /** Makes a batch and its codes; a batch made before with the same idempotency key is returned instead (`created` false). */
  createBatch(batch: NewBatch): Promise<{ readonly batch: TopupBatch; readonly created: boolean }>;
  /** Newest first. */
  listBatches(offset: number, limit: number): Promise<{ readonly rows: TopupBatchSummary[]; readonly total: number }>;
  batch(id: string): Promise<TopupBatchSummary | undefined>;
  /** Sets or clears the batch's disabled time; the batch as it is now, or undefined when none. */
  setBatchDisabled(id: string, disabledAt: number | null): Promise<TopupBatchSummary | undefined>;
  /** Newest first, as their status stands at `now`. */
  listCodes(filter: CodeFilter, now: number, offset: number, limit: number): Promise<{ readonly rows: TopupCode[]; readonly total: number }>;
  code(id: string): Promise<TopupCode | undefined>;
  setCodeDisabled(id: string, disabledAt: number | null): Promise<TopupCode | undefined>;
  /** The code with this digest, claimed for `who` and credited to its account, once; or why not. */
  redeem(hash: string, who: Redeemer, now: number, note: (code: TopupCode) => string): Promise<Redemption>;
}

/** A code's status at `now`: redeemed wins, then disabled (itself or its batch), then expired. */
export function statusOf(code: TopupCode, now: number): CodeStatus {
  if (code.redeemedAt !== null) return 'redeemed';
  if (code.disabledAt !== null || code.batchDisabledAt !== null) return 'disabled';
  if (code.expiresAt !== null && code.expiresAt <= now) return 'expired';
  return 'active';
}
