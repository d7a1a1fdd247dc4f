// A max_spend as the admin API and the console take it, a key's or an account's: a plain amount (a lifetime cap), or
// gateway.yaml's PeriodicSpend, {amount, period: day|week|month, timezone?}, checked as the config's is (a zone this
// runtime knows); and the setting of an account's.

import { GatewayError } from '../errors.js';
import type { SpendCap, SpendPeriod } from '../config/resolved.js';
import type { Account, LedgerStore } from '../store/ledger-store.js';
import { readAmount } from './account-admin.js';
import { knownTimezone } from './spend-period.js';

export interface SpendCapInput {
  readonly maxSpend: bigint;
  /** null: a lifetime cap. */
  readonly spendPeriod: SpendPeriod | null;
}

const FIELDS: ReadonlySet<string> = new Set(['amount', 'period', 'timezone']);
const UNITS: ReadonlySet<string> = new Set(['day', 'week', 'month']);

function invalid(param: string, message: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', message, { param });
}

/** `value` (not null) as a cap; a 400 naming `param` (or its field: `max_spend.timezone`) otherwise. */
export function readSpendCap(value: unknown, param: string): SpendCapInput {
  if (typeof value !== 'object' || value === null) return { maxSpend: readAmount(value, param), spendPeriod: null };
  if (Array.isArray(value)) throw invalid(param, `${param} must be an amount such as "5.00" or {"amount": "5.00", "period": "day", "timezone": "Europe/Berlin"}.`);
  const fields = value as Readonly<Record<string, unknown>>;
  for (const field of Object.keys(fields)) {
    if (!FIELDS.has(field)) throw invalid(`${param}.${field}`, `${param}.${field} is not a field of a max_spend; the fields are amount, period and timezone.`);
  }
  const maxSpend = readAmount(fields['amount'], `${param}.amount`);
  return { maxSpend, spendPeriod: readPeriod(fields, param, undefined) };
}

/**
 * The calendar period of a cap's fields, `period` (day, week or month; `unit` when absent, required without one) and
 * `timezone` (UTC when absent): a 400 naming `param.period` or `param.timezone` otherwise. A max_spend's and a
 * tokens_per_day's (core/limits/daily-tokens.ts).
 */
export function readPeriod(fields: Readonly<Record<string, unknown>>, param: string, unit: SpendPeriod['unit'] | undefined): SpendPeriod {
  const given = fields['period'] ?? unit;
  if (typeof given !== 'string' || !UNITS.has(given)) throw invalid(`${param}.period`, `${param}.period must be day, week or month.`);
  const timezone = fields['timezone'] ?? 'UTC';
  // A zone the runtime does not know would fail every request of the key: refused here, as gateway.yaml's is at load.
  if (typeof timezone !== 'string' || timezone === '' || timezone.length > 64 || !knownTimezone(timezone)) {
    throw invalid(`${param}.timezone`, `${param}.timezone: unknown timezone ${JSON.stringify(timezone)}; use an IANA name such as Europe/Berlin (UTC without one).`);
  }
  // Kept as the runtime spells it ("europe/berlin" is Europe/Berlin), so listings and period rows name one zone one way.
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  return { unit: given as SpendPeriod['unit'], timezone: canonical };
}

/** A max_spend as given (null or absent: none), checked: the cap over all the account's keys together. */
export function spendCapOf(value: unknown): SpendCap | null {
  if (value === undefined || value === null) return null;
  const { maxSpend, spendPeriod } = readSpendCap(value, 'max_spend');
  return spendPeriod === null ? { maxSpend } : { maxSpend, spendPeriod };
}

/**
 * Sets (or with null clears) the max_spend of an account made at run time: an amount (for life) or {amount, period,
 * timezone?}. 404 for an unknown account; 400 for a bad cap, or for an account gateway.yaml declares (its cap is the
 * file's), nothing written. Keys apply it on their next lookup (5 s on other instances).
 */
export async function setAccountMaxSpend(ledger: LedgerStore, declared: readonly string[], name: string, value: unknown): Promise<Account> {
  if (value === undefined) throw invalid('max_spend', 'max_spend is required: an amount such as "50.00", {"amount": "50.00", "period": "month"}, or null for none.');
  const cap = spendCapOf(value);
  if ((await ledger.getAccount(name)) === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${name}".`);
  if (declared.includes(name)) throw invalid('max_spend', `The account "${name}" is declared in gateway.yaml: its max_spend is set there.`);
  const updated = await ledger.setAccountSpendCap(name, cap);
  if (updated === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No account named "${name}".`);
  return updated;
}
