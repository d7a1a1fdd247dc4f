// GET /console/api/ledger/{id}/requests: the requests a ledger charge covers (the usage records written naming it, in
// the order written), a page at a time. A user reads their own account's entries; the operator names the account.

import { consoleJson } from '../../core/console/console-answer.js';
import { invalid, limitParam } from '../../core/console/query-params.js';
import { requireAccount, scopeOf } from '../../core/console/scope.js';
import { sessionOf } from '../../core/console/session-slot.js';
import { GatewayError } from '../../core/errors.js';
import { formatMoney } from '../../core/money/decimal.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;

/** GET /console/api/ledger/{id}/requests */
export async function showChargeRequests(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const query = new URLSearchParams(ctx.query);
  const account = requireAccount(await scopeOf(services, sessionOf(ctx).user, query), 'ledger to read');
  const id = ctx.params?.['id'] ?? '';
  const entry = /^[0-9]{1,15}$/.test(id) ? await services.store.ledger.ledgerEntry(account, Number(id)) : undefined;
  // Another account's entry is as missing as one that does not exist.
  if (entry === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No ledger entry with id "${id.slice(0, 20)}".`);
  const limit = limitParam(query, MAX_PAGE, DEFAULT_PAGE);
  const cursor = query.get('cursor');
  if (cursor !== null && cursor !== '' && !/^[0-9]{1,15}$/.test(cursor)) throw invalid('cursor', 'cursor must be a next_cursor this API gave.');
  const after = cursor === null || cursor === '' ? 0 : Number(cursor);
  // Only a charge covers requests; a credit or an adjustment lists none.
  const rows = entry.kind === 'charge' && entry.requestId !== null ? await services.store.chargedUsage(entry.requestId, limit + 1, after) : [];
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return consoleJson(200, {
    object: 'list',
    ledger_id: entry.id,
    currency: services.config.pricing.currency,
    data: page.map(({ record }) => ({
      request_id: record.requestId,
      time: new Date(record.ts).toISOString(),
      key_name: record.keyName,
      model: record.model,
      status: record.status,
      cost: record.cost === undefined ? null : formatMoney(record.cost),
    })),
    next_cursor: rows.length > limit && last !== undefined ? String(last.id) : null,
  });
}
