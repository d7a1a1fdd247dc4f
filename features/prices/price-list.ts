// GET /console/api/prices: what the signed-in user's keys may call, per group (the groups of the account's keys and
// those its users make keys in; every group for the operator, or ?account='s), each model with its price per unit,
// the group's multiplier applied, and the flat-priced calls (pricing.calls). Prices are the current config's.

import { consoleJson } from '../../core/console/console-answer.js';
import { scopeOf } from '../../core/console/scope.js';
import { sessionOf } from '../../core/console/session-slot.js';
import { formatMoney } from '../../core/money/decimal.js';
import { applyMultiplier, multiplierText, priceSheet } from '../../core/money/price-sheet.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';

/** The groups whose models `account`'s keys may call (null: every group of the config). */
async function groupsOf(services: GatewayServices, account: string | null): Promise<string[]> {
  const { config } = services;
  if (account === null) return [...config.groups.keys()];
  const named = new Set<string>(config.accounts.find((a) => a.name === account)?.groups ?? []);
  for (const group of (await services.store.ledger.getAccount(account))?.keyGroups ?? []) named.add(group);
  for (const key of config.keys) if (key.account === account) named.add(key.group);
  for (const key of await services.store.listKeys()) if (key.account === account && key.revokedAt === null) named.add(key.group);
  // Only the groups the running config has: a key of a group since removed calls nothing.
  return [...named].filter((g) => config.groups.has(g)).sort();
}

function describeGroup(services: GatewayServices, group: string): Record<string, unknown> {
  const { pricing } = services.config;
  const multiplier = pricing.multiplierOf(group);
  const models = services.catalog.models().filter((model) => services.access.allows(group, model));
  return {
    name: group,
    multiplier: multiplierText(multiplier),
    models: models.map((model) => {
      const price = pricing.priceOf(model);
      return { model, price: price === null ? null : priceSheet(price, multiplier) };
    }),
    calls: [...pricing.callPrices].map(([operation, price]) => ({ operation, per_call: formatMoney(applyMultiplier(price, multiplier)) })),
  };
}

/** GET /console/api/prices */
export async function showPrices(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const account = await scopeOf(services, sessionOf(ctx).user, new URLSearchParams(ctx.query));
  const groups = await groupsOf(services, account);
  return consoleJson(200, {
    object: 'list',
    account,
    currency: services.config.pricing.currency,
    unpriced: services.config.pricing.unpriced,
    data: groups.map((group) => describeGroup(services, group)),
  });
}
