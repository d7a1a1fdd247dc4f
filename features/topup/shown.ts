// Batches and codes as the console API shows them (schemas/console/topup-batch.schema.json, topup-code.schema.json):
// amounts as decimal strings, times as ISO, a code by its id and masked form, never its secret.

import { formatMoney } from '../../core/money/decimal.js';
import { maskedCode } from './code-material.js';
import type { TopupBatchSummary, TopupCode } from './topup-store.js';
import { statusOf } from './topup-store.js';

const isoOf = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function shownBatch(batch: TopupBatchSummary, currency: string, now: number): Record<string, unknown> {
  const expired = batch.expiresAt !== null && batch.expiresAt <= now;
  return {
    id: batch.id,
    amount: formatMoney(batch.amount),
    currency,
    count: batch.count,
    redeemed: batch.redeemed,
    disabled_codes: batch.disabledCodes,
    note: batch.note,
    status: batch.disabledAt !== null ? 'disabled' : expired ? 'expired' : 'active',
    created_at: new Date(batch.createdAt).toISOString(),
    expires_at: isoOf(batch.expiresAt),
    disabled_at: isoOf(batch.disabledAt),
  };
}

export function shownCode(code: TopupCode, currency: string, now: number): Record<string, unknown> {
  return {
    id: code.id,
    batch: code.batchId,
    masked: maskedCode(code.last4),
    amount: formatMoney(code.amount),
    currency,
    status: statusOf(code, now),
    created_at: new Date(code.createdAt).toISOString(),
    expires_at: isoOf(code.expiresAt),
    disabled_at: isoOf(code.disabledAt),
    redeemed_at: isoOf(code.redeemedAt),
    redeemed_by: code.redeemedBy,
    account: code.redeemedAccount,
    ledger_entry_id: code.ledgerEntryId,
  };
}
