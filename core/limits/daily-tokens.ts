// limits.tokens_per_day as the config writes it (a number of tokens a UTC day, or {tokens, period, timezone}: per
// day by default, or per week or month), as the gateway keeps it (DailyTokens: its period is a SpendPeriod, so the
// calendar that bounds a max_spend period bounds it too), and as the answers show limits again.

import type { DailyTokens, ResolvedLimits, SpendPeriod } from '../config/resolved.js';

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
