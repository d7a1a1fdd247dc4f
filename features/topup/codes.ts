// The operator's list of top-up codes, filtered by batch, status and the account they were redeemed into; its CSV
// export; and a code disabled or enabled again. Only masked forms: the secrets were shown once, when made.

import { GatewayError } from '../../core/errors.js';
import { csvField } from '../../core/console/csv-field.js';
import { consoleJson } from '../../core/console/console-answer.js';
import { invalid, offsetParam } from '../../core/console/query-params.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { TOPUP_ERRORS } from './errors.js';
import { readDisabled } from './read-disabled.js';
import { shownCode } from './shown.js';
import { TOPUP_STORE } from './store-part.js';
import type { CodeFilter, CodeStatus } from './topup-store.js';

const PAGE = 100;
/** Rows read per store query while streaming a CSV. */
const CSV_PAGE = 1000;
const STATUSES: readonly CodeStatus[] = ['active', 'redeemed', 'disabled', 'expired'];
const CSV_COLUMNS = ['id', 'batch', 'masked', 'amount', 'currency', 'status', 'created_at', 'expires_at', 'disabled_at', 'redeemed_at', 'redeemed_by', 'account'] as const;

function readFilter(query: URLSearchParams): CodeFilter {
  const filter: { batchId?: string; status?: CodeStatus; account?: string } = {};
  const batch = query.get('batch') ?? '';
  if (batch !== '') filter.batchId = batch;
  const account = query.get('account') ?? '';
  if (account !== '') filter.account = account;
  const status = query.get('status') ?? '';
  if (status !== '') {
    const known = STATUSES.find((s) => s === status);
    if (known === undefined) throw invalid('status', `status must be one of ${STATUSES.join(', ')}.`);
    filter.status = known;
  }
  return filter;
}

/** GET /console/api/topup/codes: a page of 100, newest first, with the total the filter matches. */
export async function listCodes(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const query = new URLSearchParams(ctx.query);
  const filter = readFilter(query);
  const offset = offsetParam(query);
  const now = Date.now();
  const found = await services.store.part(TOPUP_STORE).listCodes(filter, now, offset, PAGE);
  return consoleJson(200, { object: 'list', data: found.rows.map((c) => shownCode(c, services.config.pricing.currency, now)), total: found.total, offset });
}

async function* csvRows(services: GatewayServices, filter: CodeFilter, now: number): AsyncGenerator<Uint8Array> {
  yield Buffer.from(CSV_COLUMNS.join(',') + '\r\n');
  const store = services.store.part(TOPUP_STORE);
  for (let offset = 0; ; offset += CSV_PAGE) {
    const { rows } = await store.listCodes(filter, now, offset, CSV_PAGE);
    const lines = rows.map((c) => {
      const shown = shownCode(c, services.config.pricing.currency, now);
      return CSV_COLUMNS.map((column) => csvField(shown[column])).join(',') + '\r\n';
    });
    if (lines.length > 0) yield Buffer.from(lines.join(''));
    if (rows.length < CSV_PAGE) return;
  }
}

/** GET /console/api/topup/codes.csv: every code the filter matches, masked, streamed a page at a time. */
export function exportCodes(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const filter = readFilter(new URLSearchParams(ctx.query));
  const name = filter.batchId === undefined ? 'topup-codes' : `topup-codes-${filter.batchId.replace(/[^A-Za-z0-9_-]/g, '')}`;
  return Promise.resolve({
    kind: 'bytes',
    status: 200,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${name}.csv"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
    body: csvRows(services, filter, Date.now()),
  });
}

/** PATCH /console/api/topup/codes/{id}: {disabled}. A redeemed code stays redeemed (its credit is in the ledger). */
export async function updateCode(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const id = ctx.params?.['id'] ?? '';
  const disabled = readDisabled(ctx.request.head);
  const now = Date.now();
  const saved = await services.store.part(TOPUP_STORE).setCodeDisabled(id, disabled ? now : null);
  if (saved === undefined) throw new GatewayError(TOPUP_ERRORS.GW_ERR_TOPUP_NOT_FOUND, `No code ${id}.`);
  return consoleJson(200, shownCode(saved, services.config.pricing.currency, now));
}
