// The keys declared in gateway.yaml, as the console lists them beside the run-time ones: read-only (the file is where
// they change), so that the Tokens list and the usage log's key filter name every key whose requests an account sees.

import { GatewayError } from '../../core/errors.js';
import { keyPrefix } from '../../core/keys/key-material.js';
import { budgetsOf } from '../../core/money/budgets.js';
import { formatMoney } from '../../core/money/decimal.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import { limitsJson } from '../../core/limits/daily-tokens.js';

type DeclaredKey = GatewayServices['config']['keys'][number];

/** The id a declared key has wherever the gateway names it: its usage records, its limits, the dashboard's "By key". */
export function declaredKeyId(key: DeclaredKey): string {
  return `config:${key.name}`;
}

/** The declared keys of `account` (null: every one, the unmetered ones too: the operator's unnarrowed list). */
export function declaredKeysOf(services: GatewayServices, account: string | null): readonly DeclaredKey[] {
  return account === null ? services.config.keys : services.config.keys.filter((k) => k.account === account);
}

/**
 * Refuses an edit or revocation of a declared key the user may see (their account's, or any for the operator):
 * answering with the 404 of a missing key would tell them it is not there. Another account's stays a missing one
 * (the caller goes on to the run-time keys, and finds none).
 */
export function refuseDeclared(services: GatewayServices, account: string | null, id: string): void {
  const key = declaredKeysOf(services, account).find((k) => declaredKeyId(k) === id);
  if (key === undefined) return;
  throw new GatewayError('GW_ERR_CONSOLE_KEY_DECLARED', `The key "${key.name}" is declared in gateway.yaml: it is changed there, not in the console.`);
}

/** A periodic max_spend's current period (by the calendar clock): the row its spend is in, and when it ends; null for a lifetime cap. */
export function currentSpendPeriod(key: DeclaredKey, now: number): { readonly spendId: string; readonly resetsAt: number } | null {
  const budget = budgetsOf(Object.assign({ id: declaredKeyId(key) }, key), now).find((b) => b.kind === 'key');
  return budget?.kind === 'key' && budget.spendId !== undefined && budget.resetsAt !== undefined ? { spendId: budget.spendId, resetsAt: budget.resetsAt } : null;
}

/**
 * A declared key as its list row: a run-time key's fields (none it lacks invented), `declared: true`. A periodic
 * max_spend's row shows what is left of the current period and `max_spend_period` (its spend, `periodSpent`, and end).
 */
export function describeDeclared(key: DeclaredKey, spent: bigint, lastUsed: number | undefined, period?: { readonly spent: bigint; readonly resetsAt: number }): Record<string, unknown> {
  const described: Record<string, unknown> = { id: declaredKeyId(key), name: key.name, group: key.group, prefix: keyPrefix(key.key), created_at: null, revoked_at: null };
  if (key.account !== undefined) described['account'] = key.account;
  if (key.maxSpend !== undefined) described['max_spend'] = formatMoney(key.maxSpend);
  const counted = period === undefined ? spent : period.spent;
  if (key.limits !== undefined) described['limits'] = limitsJson(key.limits);
  return Object.assign(described, {
    enabled: true,
    expires_at: null,
    models: null,
    ips: null,
    declared: true,
    status: 'active',
    last_used_at: lastUsed === undefined ? null : new Date(lastUsed).toISOString(),
    spend: formatMoney(spent),
    max_spend_left: key.maxSpend === undefined ? null : formatMoney(key.maxSpend > counted ? key.maxSpend - counted : 0n),
  }, period === undefined || key.spendPeriod === undefined ? {} : {
    max_spend_period: { period: key.spendPeriod.unit, timezone: key.spendPeriod.timezone, spend: formatMoney(period.spent), resets_at: new Date(period.resetsAt).toISOString() },
  });
}
