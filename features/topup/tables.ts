// The top-up codes' tables (migrations.ts makes them): a batch the operator made, and its codes, each stored as the
// digest of its secret only.

import type { ColumnType } from 'kysely';
import type { EpochMsColumn, MoneyColumn } from '../../core/store/schema.js';

type NullableMs = ColumnType<number | string | bigint | null, number | null, number | null>;

/** A batch: what each of its codes credits, until when, and whether the operator disabled it. */
export interface TopupBatchesTable {
  /** tb_ and 16 hex digits. */
  id: string;
  /** Nano-units each code credits. */
  amount: MoneyColumn;
  count: ColumnType<number | string | bigint, number, number>;
  note: string | null;
  /** The operator's key for this creation: a retry makes no second batch (unique). */
  idempotency_key: string;
  created_at: EpochMsColumn;
  /** From then on its codes are refused; null: never. */
  expires_at: NullableMs;
  /** Its codes are refused while set. */
  disabled_at: NullableMs;
}

/** A code: its secret's digest, and once redeemed who redeemed it, when, into which account, with which entry. */
export interface TopupCodesTable {
  /** tc_ and 16 hex digits: how the console and the ledger name it. */
  id: string;
  batch_id: string;
  /** Hex SHA-256 of the code as normalised (code-material.ts); unique. */
  hash: string;
  /** Its last four characters, for the masked form. */
  last4: string;
  created_at: EpochMsColumn;
  disabled_at: NullableMs;
  redeemed_at: NullableMs;
  /** The console user's name, and its account. */
  redeemed_by: string | null;
  redeemed_account: string | null;
  /** The ledger entry of its credit. */
  ledger_entry_id: ColumnType<number | string | bigint | null, number | null, number | null>;
}

// A type, not an interface: Kysely's withTables takes a record type.
export type TopupTables = {
  topup_batches: TopupBatchesTable;
  topup_codes: TopupCodesTable;
};
