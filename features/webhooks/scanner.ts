// The scan: what happens without a request to make it (a balance that ran low, a key that reached its cap or is
// about to expire) is looked for every scan, on every instance; each occurrence has a key of its own (the account and
// its last credit, the key and its cap or expiry; a periodic cap's period too), so the fleet keeps, and sends, it once
// however many instances see it, and a new top-up, a new cap or a new period makes the next one.

import type { ResolvedDeclaredKey } from '../../core/config/resolved.js';
import type { EventType } from './event-types.js';
import { budgetsOf } from '../../core/money/budgets.js';
import { formatMoney } from '../../core/money/decimal.js';
import type { WebhookSettings, WebhookTarget } from './config.js';
import { keepFor } from './emitter.js';
import type { WebhookStore } from './store-part.js';
import type { CappedKey, LowAccount } from './watched-facts.js';

/** A key at its cap, and the spend row it reached it in: a periodic cap's names its period (ISO start, reset). */
interface CappedAt extends CappedKey {
  readonly row: string;
  readonly period: { readonly unit: string; readonly timezone: string; readonly start: string; readonly resetsAt: number } | null;
}

const DAY_MS = 86_400_000;
/** Delivered and given-up events are kept this long (to look into), then deleted. */
const KEEP_ENDED_MS = 30 * DAY_MS;
/** An event still undelivered after this long (its retries end within a day) has a hook no instance has any more. */
const ABANDON_AFTER_MS = 7 * DAY_MS;

export interface ScanDeps {
  readonly settings: WebhookSettings;
  readonly store: WebhookStore;
  /** The config's declared keys (their caps are the config's). */
  readonly declaredKeys: readonly ResolvedDeclaredKey[];
  /** The calendar clock (services.clock): which period of a periodic max_spend is the current one. */
  readonly clock: () => number;
}

/** One scan at `now` (the outbox's times; a periodic cap's period is the calendar clock's). */
export async function scan(deps: ScanDeps, now: number): Promise<void> {
  const { hooks } = deps.settings;
  const wanting = (type: EventType): WebhookTarget[] => hooks.filter((hook) => hook.events.has(type));
  const { outbox, facts } = deps.store;
  // The accounts below a threshold, asked once per threshold in a scan.
  const below = new Map<bigint, Promise<LowAccount[]>>();
  const accountsBelow = (threshold: bigint): Promise<LowAccount[]> => {
    let found = below.get(threshold);
    if (found === undefined) {
      found = facts.accountsBelow(threshold);
      below.set(threshold, found);
    }
    return found;
  };

  // balance_low: each hook its own threshold.
  for (const hook of wanting('balance_low')) {
    for (const low of await accountsBelow(hook.balanceBelow)) {
      const event = {
        type: 'balance_low' as const,
        key: `balance_low:${low.account}:${low.lastCredit}`,
        data: { account: low.account, balance: formatMoney(low.balance), threshold: formatMoney(hook.balanceBelow) },
      };
      await keepFor(outbox, [hook], event, now);
    }
  }

  const budgetHooks = wanting('budget_reached');
  if (budgetHooks.length > 0) {
    // An account with nothing left; a key at its max_spend (a run-time key's in the store, a declared key's in the config).
    for (const empty of await accountsBelow(1n)) {
      const event = { type: 'budget_reached' as const, key: `budget_reached:account:${empty.account}:${empty.lastCredit}`, data: { scope: 'account', account: empty.account, balance: formatMoney(empty.balance) } };
      await keepFor(outbox, budgetHooks, event, now);
    }
    const capped: CappedAt[] = (await facts.keysAtCap()).map((key) => Object.assign({ row: key.id, period: null }, key));
    // A declared key's cap is compared with the row it counts in: a lifetime cap's, or the current period's
    // (`<key id>@<period start>`), so a periodic cap is reached once per period, and again in the next.
    const calendarNow = deps.clock();
    const declared = deps.declaredKeys.flatMap((key) => {
      const budget = budgetsOf(Object.assign({ id: `config:${key.name}` }, key), calendarNow).find((b) => b.kind === 'key');
      return budget?.kind === 'key' ? [{ key, budget }] : [];
    });
    const spent = await facts.spentOf(declared.map(({ budget }) => budget.spendId ?? budget.keyId));
    for (const { key, budget } of declared) {
      const row = budget.spendId ?? budget.keyId;
      const total = spent.get(row) ?? 0n;
      if (total < budget.maxSpend) continue;
      const period = key.spendPeriod === undefined || budget.resetsAt === undefined ? null : { unit: key.spendPeriod.unit, timezone: key.spendPeriod.timezone, start: row.slice(row.lastIndexOf('@') + 1), resetsAt: budget.resetsAt };
      capped.push({ id: budget.keyId, row, name: key.name, account: key.account ?? null, maxSpend: budget.maxSpend, spent: total, period });
    }
    for (const key of capped) {
      const data: Record<string, unknown> = { scope: 'key', key_id: key.id, key_name: key.name, account: key.account, max_spend: formatMoney(key.maxSpend), spent: formatMoney(key.spent) };
      if (key.period !== null) Object.assign(data, { period: key.period.unit, timezone: key.period.timezone, period_start: key.period.start, resets_at: new Date(key.period.resetsAt).toISOString() });
      // The row names the occurrence: a lifetime cap's is the key's id (as before periods), a period's carries its start.
      const event = { type: 'budget_reached' as const, key: `budget_reached:key:${key.row}:${key.maxSpend}`, data };
      await keepFor(outbox, budgetHooks, event, now);
    }
  }

  for (const hook of wanting('key_expiring')) {
    for (const key of await facts.keysExpiring(now, now + hook.keyExpiringDays * DAY_MS)) {
      const event = {
        type: 'key_expiring' as const,
        key: `key_expiring:${key.id}:${key.expiresAt}`,
        data: { key_id: key.id, key_name: key.name, account: key.account, expires_at: new Date(key.expiresAt).toISOString() },
      };
      await keepFor(outbox, [hook], event, now);
    }
  }
  await outbox.prune(now - KEEP_ENDED_MS, now - ABANDON_AFTER_MS, now);
}
