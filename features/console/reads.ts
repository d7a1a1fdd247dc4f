// The console's reads of records: the dashboard, the usage log and its CSV, the ledger. A user's cover their own
// account, whatever they ask; the operator's all, or ?account='s (core/console/scope.ts).

import { consoleJson } from '../../core/console/console-answer.js';
import { requireAccount, scopeOf } from '../../core/console/scope.js';
import { sessionOf } from '../../core/console/session-slot.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import { dashboard } from './dashboard.js';
import { ledgerPage } from './ledger.js';
import { usageCsv, usagePage } from './usage.js';

function scope(ctx: RequestContext, services: GatewayServices): Promise<string | null> {
  return scopeOf(services, sessionOf(ctx).user, new URLSearchParams(ctx.query));
}

/** GET /console/api/dashboard */
export async function showDashboard(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return consoleJson(200, await dashboard(services, await scope(ctx, services), new URLSearchParams(ctx.query)));
}

/** GET /console/api/usage */
export async function showUsage(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return consoleJson(200, await usagePage(services, await scope(ctx, services), new URLSearchParams(ctx.query)));
}

/** GET /console/api/usage.csv */
export async function exportUsage(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return usageCsv(services, await scope(ctx, services), new URLSearchParams(ctx.query));
}

/** GET /console/api/ledger: one account's; the operator names it. */
export async function showLedger(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const account = requireAccount(await scope(ctx, services), 'ledger to read');
  return consoleJson(200, await ledgerPage(services, account, new URLSearchParams(ctx.query)));
}
