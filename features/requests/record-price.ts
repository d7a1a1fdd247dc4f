// The prices a record was charged at: its price version's document (the store keeps each), the model's prices there
// (or its operation's flat price, pricing.calls) and the group's multiplier, per unit, multiplier applied.

import { formatMoney } from '../../core/money/decimal.js';
import { pricingFromDocument } from '../../core/money/pricing.js';
import { applyMultiplier, multiplierText, priceSheet } from '../../core/money/price-sheet.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import type { UsageRecord } from '../../core/store/store.js';

export async function recordPrice(services: GatewayServices, record: UsageRecord): Promise<Record<string, unknown> | null> {
  if (record.priceVersion === undefined) return null;
  const document = await services.store.ledger.priceDocument(record.priceVersion);
  if (document === undefined) return null;
  const pricing = pricingFromDocument(document);
  const multiplier = pricing.multiplierOf(record.group);
  const call = pricing.callPrice(record.model);
  const price = call === null ? pricing.priceOf(record.model) : null;
  return {
    version: record.priceVersion,
    multiplier: multiplierText(multiplier),
    per_call: call === null ? null : formatMoney(applyMultiplier(call, multiplier)),
    per_unit: price === null ? null : priceSheet(price, multiplier),
  };
}
