// Accounts as the CLI and the admin API handle them: create, credit, show, with input checked and amounts as decimal
// strings. Every change of a balance goes through the ledger (LedgerStore.post), never around it.

import { GatewayError } from '../errors.js';
import { AccountExists, BalanceBelowFloor, BalanceOverflowError, MAX_BALANCE, type Account, type LedgerEntry, type LedgerStore } from '../store/ledger-store.js';
import type { SpendCap } from '../config/resolved.js';
import { formatMoney, MAX_AMOUNT, parseMoney } from './decimal.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const MAX_NOTE = 500;
const MAX_IDEMPOTENCY_KEY = 200;

function invalid(param: string, message: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', message, { param });
}

/** Creates an account; `cap` is its max_spend, read by the caller (spend-cap-input.ts spendCapOf). */
export async function createAccount(ledger: LedgerStore, input: { readonly name: unknown; readonly description?: unknown }, cap: SpendCap | null = null): Promise<Account> {
  if (typeof input.name !== 'string' || !NAME.test(input.name)) throw invalid('name', 'name must be 1-64 letters, digits, "_", "." or "-".');
  const description = input.description ?? null;
  if (description !== null && (typeof description !== 'string' || description.length > MAX_NOTE)) {
    throw invalid('description', `description must be a string of at most ${MAX_NOTE} characters.`);
  }
  const taken = (): GatewayError => invalid('name', `An account named "${input.name as string}" already exists.`);
  if ((await ledger.getAccount(input.name)) !== undefined) throw taken();
  try {
    return await ledger.createAccount(input.name, description, Date.now(), ...(cap === null ? [] : [cap]));
  } catch (err) {
    // Created meanwhile by another request or instance: the same answer as when it was there before.
    if (err instanceof AccountExists) throw taken();
    throw err;
  }
}

/** A positive decimal amount (a string such as "12.50", or a whole number) in nano-units; a 400 naming `param` otherwise. */
export function readAmount(value: unknown, param: string): bigint {
  // A JSON number with a fraction is a binary float by the time it is read: 123456789.123456789 arrives as
  // 123456789.12345679, 0.1000000000000000000001 as 0.1, and no check can tell. Only whole numbers are exact.
  if (typeof value === 'number' && !Number.isInteger(value)) {
    throw invalid(param, `${param} with a fraction must be sent as a string such as "12.50" (a JSON number may already have lost digits).`);
  }
  let amount: bigint;
  try {
    if (typeof value !== 'string' && typeof value !== 'number') throw new RangeError('not a decimal');
    amount = parseMoney(value);
  } catch {
    throw invalid(param, `${param} must be a decimal amount such as "12.50", with at most 9 decimal places.`);
  }
  if (amount <= 0n) throw invalid(param, `${param} must be more than zero.`);
  if (amount > MAX_AMOUNT) throw invalid(param, `${param} must be at most ${formatMoney(MAX_AMOUNT)}.`);
  return amount;
}

/** A signed decimal amount, not zero, at most MAX_AMOUNT either way (an adjustment); a 400 naming `param` otherwise. */
export function readSignedAmount(value: unknown, param: string): bigint {
  const negative = typeof value === 'string' ? value.trim().startsWith('-') : typeof value === 'number' && value < 0;
  const text = typeof value === 'string' ? value.trim().replace(/^[-+]/, '') : typeof value === 'number' ? Math.abs(value) : value;
  if (typeof text === 'string' && /^[-+]/.test(text)) throw invalid(param, `${param} must be a decimal amount such as "-2.50" or "12.50", with at most 9 decimal places.`);
  let magnitude: bigint;
  try {
    magnitude = readAmount(text, param);
  } catch (err) {
    if (err instanceof GatewayError && /more than zero/.test(err.message)) throw invalid(param, `${param} must not be zero: a positive amount adds, a negative one takes away.`);
    throw err;
  }
  return negative ? -magnitude : magnitude;
}

/**
 * What the operator does to a balance: a credit (money in), a debit (money taken back, never past zero) or an
 * adjustment (a correction either way, which may leave the balance below zero). Debits and adjustments are ledger
 * `adjustment` entries (a `charge` is the sum of usage records, and the audit holds it to them) and need a note.
 */
export type OperatorPosting = 'credit' | 'debit' | 'adjustment';

const NOTE_REQUIRED: Readonly<Record<OperatorPosting, boolean>> = { credit: false, debit: true, adjustment: true };

/**
 * Credits, debits or adjusts an account: one ledger entry; a repeated idempotency key applies once (the first entry
 * is returned, `applied` false). 404 for an unknown account; 400 for a debit past the balance, nothing written.
 */
export async function postToAccount(
  ledger: LedgerStore,
  name: string,
  posting: OperatorPosting,
  input: { readonly amount: unknown; readonly note?: unknown; readonly idempotency_key: unknown },
): Promise<{ readonly entry: LedgerEntry; readonly applied: boolean; readonly account: Account }> {
  const given = posting === 'adjustment' ? readSignedAmount(input.amount, 'amount') : readAmount(input.amount, 'amount');
  const amount = posting === 'debit' ? -given : given;
  const note = input.note ?? null;
  if (note !== null && (typeof note !== 'string' || note.length > MAX_NOTE)) throw invalid('note', `note must be a string of at most ${MAX_NOTE} characters.`);
  if (NOTE_REQUIRED[posting] && (note === null || (note as string).trim() === '')) throw invalid('note', `note is required: say why this ${posting} is made (the ledger keeps it).`);
  const key = input.idempotency_key;
  if (typeof key !== 'string' || key === '' || key.length > MAX_IDEMPOTENCY_KEY) {
    throw invalid('idempotency_key', `idempotency_key is required: a string of 1 to ${MAX_IDEMPOTENCY_KEY} characters naming this ${posting}, so a retry applies it once.`);
  }
  if ((await ledger.getAccount(name)) === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${name}".`);
  let posted: Awaited<ReturnType<LedgerStore['post']>>;
  const kind = posting === 'credit' ? 'credit' : 'adjustment';
  try {
    posted = await ledger.post({ account: name, kind, amount, idempotencyKey: `${posting}:${key}`, note: note as string | null, ts: Date.now(), ...(posting === 'debit' ? { floor: 0n } : {}) });
  } catch (err) {
    if (err instanceof BalanceOverflowError) throw invalid('amount', `This ${posting} would take the balance of "${name}" past ${amount < 0n ? '-' : ''}${formatMoney(MAX_BALANCE)}, the most an account holds.`);
    if (err instanceof BalanceBelowFloor) {
      throw invalid('amount', `The balance of "${name}" is ${formatMoney(err.balance)}: a debit may not take it below zero (an adjustment may).`);
    }
    throw err;
  }
  if (posted.entry.account !== name || posted.entry.amount !== amount) {
    // The key was used before for another posting: applying this one under it would lose it silently.
    throw invalid('idempotency_key', `This idempotency_key was already used for a different ${posting}.`);
  }
  const account = await ledger.getAccount(name);
  if (account === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${name}".`);
  return { entry: posted.entry, applied: posted.applied, account };
}

/** A credit (postToAccount's): what the CLI, the admin API and the console's credit call. */
export function creditAccount(
  ledger: LedgerStore,
  name: string,
  input: { readonly amount: unknown; readonly note?: unknown; readonly idempotency_key: unknown },
): Promise<{ readonly entry: LedgerEntry; readonly applied: boolean; readonly account: Account }> {
  return postToAccount(ledger, name, 'credit', input);
}

export function describeAccount(account: Account, currency: string): Record<string, unknown> {
  return {
    name: account.name,
    description: account.description,
    balance: formatMoney(account.balance),
    currency,
    created_at: new Date(account.createdAt).toISOString(),
    disabled: account.disabled,
  };
}

export function describeEntry(entry: LedgerEntry): Record<string, unknown> {
  return {
    id: entry.id,
    kind: entry.kind,
    amount: formatMoney(entry.amount),
    request_id: entry.requestId,
    key_id: entry.keyId,
    note: entry.note,
    created_at: new Date(entry.ts).toISOString(),
  };
}
