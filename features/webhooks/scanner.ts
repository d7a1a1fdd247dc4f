// The scan: what happens without a request to make it (a balance that ran low, a key or an account that reached its
// max_spend, a key about to expire) is looked for every scan, on every instance; each occurrence has a key of its own
// (the account and its last credit, the key or account and its cap, the key and its expiry; a periodic cap's period
// too), so the fleet keeps, and sends, it once however many instances see it, and a new top-up, a new cap or a new
// period makes the next one.

import type { ResolvedAccount, ResolvedDeclaredKey } from '../../core/config/resolved.js';
import type { EventType } from './event-types.js';
import { formatMoney } from '../../core/money/decimal.js';
import type { WebhookSettings, WebhookTarget } from './config.js';
import { keepFor } from './emitter.js';
import type { WebhookStore } from './store-part.js';
import { capsReached } from './budget-scan.js';
import type { LowAccount } from './watched-facts.js';

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
  /** The config's declared accounts (their max_spend is the config's; other accounts' the store's). */
  readonly declaredAccounts: readonly ResolvedAccount[];
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
    // An account with nothing left.
    for (const empty of await accountsBelow(1n)) {
      const event = { type: 'budget_reached' as const, key: `budget_reached:account:${empty.account}:${empty.lastCredit}`, data: { scope: 'account', account: empty.account, balance: formatMoney(empty.balance) } };
      await keepFor(outbox, budgetHooks, event, now);
    }
    // A key's or an account's max_spend, for life or the current period (budget-scan.ts).
    for (const reached of await capsReached(facts, deps.declaredKeys, deps.declaredAccounts, deps.clock())) {
      await keepFor(outbox, budgetHooks, { type: 'budget_reached' as const, key: reached.key, data: reached.data }, now);
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
