// limits.tokens_per_day as the config writes it (a number of tokens a UTC day, or {tokens, period, timezone}: per
// day by default, or per week or month), as the gateway keeps it (DailyTokens: its period is a SpendPeriod, so the
// calendar that bounds a max_spend period bounds it too), and as the answers show limits again.

import type { DailyTokens, ResolvedLimits, SpendPeriod } from '../config/resolved.js';
import { GatewayError } from '../errors.js';
import { readPeriod } from '../money/spend-cap-input.js';

/** The most tokens a cap may have (the config schema's bound). */
const MAX_TOKENS = 1_000_000_000_000;

/** A cap of `tokens` per `unit` (a day without one) starting at `timezone`'s midnight (UTC without one). */
export function dailyTokens(tokens: number, timezone: string | undefined, unit: SpendPeriod['unit'] = 'day'): DailyTokens {
  return { tokens, period: { unit, timezone: timezone ?? 'UTC' } };
}

/** The JSON of `tokens_per_day` for `daily`: the plain number for a UTC day, as it would be written. */
export function dailyTokensJson(daily: DailyTokens): number | { tokens: number; period?: SpendPeriod['unit']; timezone?: string } {
  const { unit, timezone } = daily.period;
  if (unit === 'day' && timezone === 'UTC') return daily.tokens;
  return Object.assign({ tokens: daily.tokens }, unit === 'day' ? {} : { period: unit }, timezone === 'UTC' ? {} : { timezone });
}

/** Limits as the answers show them (the config's names): `tpd` is `tokens_per_day`. */
export function limitsJson(limits: ResolvedLimits): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  if (limits.rpm !== undefined) json['rpm'] = limits.rpm;
  if (limits.tpm !== undefined) json['tpm'] = limits.tpm;
  if (limits.concurrency !== undefined) json['concurrency'] = limits.concurrency;
  if (limits.tpd !== undefined) json['tokens_per_day'] = dailyTokensJson(limits.tpd);
  return json;
}

/**
 * `tokens_per_day` as an API's body gives it (a run-time key's limits): a whole number of tokens a UTC day, or
 * {tokens, period?, timezone?}; a 400 naming the part that is wrong otherwise.
 */
export function readDailyTokens(value: unknown): DailyTokens {
  const param = 'limits.tokens_per_day';
  const tokensOf = (n: unknown, where: string): number => {
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > MAX_TOKENS) {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${where} must be a whole number from 1 to ${MAX_TOKENS}.`, { param: where });
    }
    return n;
  };
  if (typeof value === 'number') return dailyTokens(tokensOf(value, param), undefined);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${param} must be a number of tokens or {"tokens": 2000000, "period": "day", "timezone": "Europe/Berlin"}.`, { param });
  }
  const fields = value as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (name !== 'tokens' && name !== 'period' && name !== 'timezone') {
      throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `${param}.${name} is not a field; the fields are tokens, period and timezone.`, { param: `${param}.${name}` });
    }
  }
  const period = readPeriod(fields, param, 'day');
  return { tokens: tokensOf(fields['tokens'], `${param}.tokens`), period };
}
