// The scan: what happens without a request to make it (a balance that ran low, a key that reached its cap or is
// about to expire) is looked for every scan, on every instance; each occurrence has a key of its own (the account and
// its last credit, the key and its cap or expiry), so the fleet keeps, and sends, it once however many instances see
// it, and a new top-up or a new cap makes the next one.

import type { ResolvedDeclaredKey } from '../../core/config/resolved.js';
import type { EventType } from './event-types.js';
import { formatMoney } from '../../core/money/decimal.js';
import type { WebhookSettings, WebhookTarget } from './config.js';
import { keepFor } from './emitter.js';
import type { WebhookStore } from './store-part.js';
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
}

/** One scan at `now`. */
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
    const capped = await facts.keysAtCap();
    const declared = deps.declaredKeys.filter((key) => key.maxSpend !== undefined);
    const spent = await facts.spentOf(declared.map((key) => `config:${key.name}`));
    for (const key of declared) {
      const id = `config:${key.name}`;
      const total = spent.get(id) ?? 0n;
      if (key.maxSpend !== undefined && total >= key.maxSpend) capped.push({ id, name: key.name, account: key.account ?? null, maxSpend: key.maxSpend, spent: total });
    }
    for (const key of capped) {
      const event = {
        type: 'budget_reached' as const,
        key: `budget_reached:key:${key.id}:${key.maxSpend}`,
        data: { scope: 'key', key_id: key.id, key_name: key.name, account: key.account, max_spend: formatMoney(key.maxSpend), spent: formatMoney(key.spent) },
      };
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
