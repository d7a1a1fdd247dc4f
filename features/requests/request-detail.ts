// GET /console/api/requests/{id}: one request as its usage record tells it (route, models, key, account, channel and
// each upstream attempt, times, tokens), the prices it was charged at (the record's price version, its group's
// multiplier), its cost and the ledger charge that covers it. A user reaches their own account's requests only:
// another's, and one that does not exist, are the same 404.

import { consoleJson } from '../../core/console/console-answer.js';
import { sessionOf } from '../../core/console/session-slot.js';
import { GatewayError } from '../../core/errors.js';
import { describeEntry } from '../../core/money/account-admin.js';
import { formatMoney } from '../../core/money/decimal.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import type { UsageRecord } from '../../core/store/store.js';
import { recordPrice } from './record-price.js';

/** Longest id looked up: request ids are UUIDs, task ids shorter; anything longer names nothing. */
const MAX_ID = 200;

function notFound(id: string): GatewayError {
  return new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `No request with id "${id.slice(0, MAX_ID)}".`);
}

/** The record `id` names if this user may read it; else the 404 a missing one gets. */
export async function readableRecord(services: GatewayServices, account: string | null, id: string): Promise<UsageRecord> {
  if (id === '' || id.length > MAX_ID) throw notFound(id);
  const [record] = await services.store.listUsage({ requestId: id, limit: 1 });
  if (record === undefined || (account !== null && record.account !== account)) throw notFound(id);
  return record;
}

/**
 * The attempts as recorded (a failover's, or one that failed); else the one attempt the record implies, when a
 * channel was reached (its time is the request's, not told apart).
 */
function attemptsOf(record: UsageRecord): Record<string, unknown>[] {
  if (record.attempts !== undefined) return record.attempts.map((a) => ({ channel: a.channel, status: a.status, error: a.error, latency_ms: a.latencyMs }));
  if (record.channel === null) return [];
  return [{ channel: record.channel, status: record.status, error: record.errorCode, latency_ms: null }];
}

export async function describeRequest(services: GatewayServices, record: UsageRecord): Promise<Record<string, unknown>> {
  const charge = record.chargeId === undefined ? undefined : await services.store.ledger.chargeEntry(record.chargeId);
  return {
    request_id: record.requestId,
    time: new Date(record.ts).toISOString(),
    route: record.route,
    model: record.model,
    upstream_model: record.upstreamModel,
    key: { id: record.keyId, name: record.keyName },
    account: record.account ?? null,
    group: record.group,
    channel: record.channel,
    attempts: attemptsOf(record),
    status: record.status,
    error_code: record.errorCode,
    error_message: record.errorMessage ?? null,
    stream: record.stream,
    aborted: record.aborted,
    ttft_ms: record.ttftMs,
    latency_ms: record.latencyMs,
    tokens: {
      input: record.promptTokens,
      output: record.completionTokens,
      cache_read: record.cachedTokens,
      cache_write: record.cacheWriteTokens,
      reasoning: record.reasoningTokens,
      images: record.images ?? 0,
      seconds: record.seconds ?? 0,
      estimated: record.usageEstimated === true,
    },
    currency: services.config.pricing.currency,
    price: await recordPrice(services, record),
    cost: record.cost === undefined ? null : formatMoney(record.cost),
    // The charge covers this record and the others of its batch billed to the same account (its note counts them).
    charge: charge === undefined || charge.account !== record.account ? null : describeEntry(charge),
    made: await madeOf(services, record),
  };
}

/**
 * What the request made or acted on (its route's handler named it: `<kind>:<id>`), and whether that thing has a
 * record of its own this reader may open (a task's, written at its end under the task's id).
 */
async function madeOf(services: GatewayServices, record: UsageRecord): Promise<Record<string, unknown> | null> {
  const subject = record.subject;
  if (subject === undefined) return null;
  const at = subject.indexOf(':');
  const kind = at < 0 ? subject : subject.slice(0, at);
  const id = at < 0 ? '' : subject.slice(at + 1);
  if (id === '' || id === record.requestId || id.length > MAX_ID) return { kind, id, record: false };
  const [own] = await services.store.listUsage({ requestId: id, limit: 1 });
  return { kind, id, record: own !== undefined && own.account === record.account && own.keyId === record.keyId };
}

/** GET /console/api/requests/{id} */
export async function showRequest(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const record = await readableRecord(services, sessionOf(ctx).user.account, ctx.params?.['id'] ?? '');
  return consoleJson(200, await describeRequest(services, record));
}
