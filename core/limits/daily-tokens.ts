// limits.tokens_per_day as the config and the admin API write it (a number of tokens a UTC day, or {tokens,
// timezone}), as the gateway keeps it (DailyTokens: the day is a SpendPeriod, so the calendar that bounds a max_spend
// period bounds it too), and as the answers show limits again.

import type { DailyTokens, ResolvedLimits } from '../config/resolved.js';

/** A daily cap of `tokens` whose day starts at `timezone`'s midnight (UTC without one). */
export function dailyTokens(tokens: number, timezone: string | undefined): DailyTokens {
  return { tokens, period: { unit: 'day', timezone: timezone ?? 'UTC' } };
}

/** The JSON of `tokens_per_day` for `daily`: the plain number for a UTC day, as it would be written. */
export function dailyTokensJson(daily: DailyTokens): number | { tokens: number; timezone: string } {
  return daily.period.timezone === 'UTC' ? daily.tokens : { tokens: daily.tokens, timezone: daily.period.timezone };
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
