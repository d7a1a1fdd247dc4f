// A max_spend as the admin API and the console take it: a plain amount (a lifetime cap), or gateway.yaml's
// PeriodicSpend, {amount, period: day|week|month, timezone?}, checked as the config's is (a zone this runtime knows).

import { GatewayError } from '../errors.js';
import type { SpendPeriod } from '../config/resolved.js';
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
  const unit = fields['period'];
  if (typeof unit !== 'string' || !UNITS.has(unit)) throw invalid(`${param}.period`, `${param}.period must be day, week or month.`);
  const timezone = fields['timezone'] ?? 'UTC';
  // A zone the runtime does not know would fail every request of the key: refused here, as gateway.yaml's is at load.
  if (typeof timezone !== 'string' || timezone === '' || timezone.length > 64 || !knownTimezone(timezone)) {
    throw invalid(`${param}.timezone`, `${param}.timezone: unknown timezone ${JSON.stringify(timezone)}; use an IANA name such as Europe/Berlin (UTC without one).`);
  }
  // Kept as the runtime spells it ("europe/berlin" is Europe/Berlin), so listings and period rows name one zone one way.
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  return { maxSpend, spendPeriod: { unit: unit as SpendPeriod['unit'], timezone: canonical } };
}
