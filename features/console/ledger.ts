// GET /console/api/ledger: an account's credits, charges and refunds, newest first, a page at a time (next_cursor is
// the last entry's id). A user reads their own account's; the operator names one (?account=).

import { describeEntry } from '../../core/money/account-admin.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import { invalid, limitParam } from '../../core/console/query-params.js';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;

export async function ledgerPage(services: GatewayServices, account: string, query: URLSearchParams): Promise<Record<string, unknown>> {
  const limit = limitParam(query, MAX_PAGE, DEFAULT_PAGE);
  const cursor = query.get('cursor');
  if (cursor !== null && cursor !== '' && !/^[0-9]{1,15}$/.test(cursor)) throw invalid('cursor', 'cursor must be a next_cursor this API gave.');
  const before = cursor === null || cursor === '' ? undefined : Number(cursor);
  const entries = await services.store.ledger.listLedger(account, limit + 1, before);
  const page = entries.slice(0, limit);
  const last = page[page.length - 1];
  return {
    object: 'list',
    account,
    currency: services.config.pricing.currency,
    data: page.map((e) => Object.assign({ account: e.account }, describeEntry(e))),
    next_cursor: entries.length > limit && last !== undefined ? String(last.id) : null,
  };
}
