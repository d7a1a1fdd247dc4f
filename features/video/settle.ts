// A task's end, applied once. The row is settled in one transaction with its money's release: a compare-and-set on
// `settled_at` (one settler wins, whatever instance, poll or client read saw the end) that also writes the cost and
// drops the task's holds. Only the winner then writes the usage record, which makes the charge (in the ledger, with
// the record, as every charge is; unique by the task's id, so made once), and notes it written. A crash between the
// two leaves a settled row without its record: `recordSettled` writes it from the row (the sweep of poller.ts), so the
// row is the truth and the record follows it.

import type { GatewayError } from '../../core/errors.js';
import type { GatewayEvent } from '../../core/feature/gateway-events.js';
import { MAX_USAGE_COUNT } from '../../core/ir/usage.js';
import type { UsageRecord } from '../../core/store/store.js';
import type { VideoTaskRow, VideoTaskSettlement } from './video-task-store.js';
import { taskCost } from './task-money.js';
import type { VideoDeps } from './video-deps.js';
import { arkSizeOf, DEFAULT_RESOLUTION, isResolution, MAX_SECONDS, maxTaskTokens } from './video-size.js';
import { VIDEO_TASKS } from './store-part.js';

export type TaskEnd = Omit<VideoTaskSettlement, 'cost' | 'at' | 'priceVersion'>;

/** The route a task was made on (its record names it, as a request's does). */
export function routeOf(row: Pick<VideoTaskRow, 'shape'>): string {
  return row.shape === 'openai' ? '/v1/videos' : '/v1/video/generations';
}

/** A record's status and code for a task's end: only a video made is a success. */
const OUTCOME: Readonly<Record<TaskEnd['status'], { readonly status: number; readonly code: GatewayError['code'] | null }>> = Object.freeze({
  succeeded: { status: 200, code: null },
  failed: { status: 502, code: 'GW_ERR_VIDEO_TASK_FAILED' },
  cancelled: { status: 409, code: 'GW_ERR_VIDEO_TASK_CANCELLED' },
  expired: { status: 504, code: 'GW_ERR_VIDEO_TASK_EXPIRED' },
});

/**
 * The tokens a succeeded task is charged for: what the upstream reported, else (an upstream that reported none) the
 * most its resolution and length make, as was reserved: a video made is never free.
 */
function tokensOf(row: VideoTaskRow, end: TaskEnd): number {
  if (end.status !== 'succeeded') return 0;
  // Bounded as any reported count is (ir/usage.ts): past it the record would not fit the store, and never be written.
  if (end.totalTokens !== null) return Math.min(end.totalTokens, MAX_USAGE_COUNT);
  const size = row.size ?? DEFAULT_RESOLUTION;
  const resolution = isResolution(size) ? size : (arkSizeOf(size)?.resolution ?? DEFAULT_RESOLUTION);
  return maxTaskTokens(resolution, row.seconds);
}

/**
 * The seconds of video a succeeded task is charged for (at per_second): the duration the upstream reported, else the
 * seconds asked (auto: the longest, as was reserved, and as tokensOf estimates). Whole seconds, rounded as the row's
 * column keeps them: the row and its record say the seconds charged, and the audit computes the cost again from them.
 */
function secondsOf(row: VideoTaskRow, end: TaskEnd): number {
  if (end.status !== 'succeeded') return 0;
  return Math.min(Math.round(end.seconds ?? row.seconds ?? MAX_SECONDS), MAX_USAGE_COUNT);
}

/** Settles `row` as `end` says; whether this call was the one that did. */
export async function settleTask(deps: VideoDeps, row: VideoTaskRow, end: TaskEnd, now = Date.now()): Promise<boolean> {
  const { pricing } = deps.config;
  const price = pricing.priceOf(row.model);
  const totalTokens = tokensOf(row, end);
  const seconds = secondsOf(row, end);
  const cost = price === null ? 0n : taskCost(price, totalTokens, seconds, pricing.multiplierOf(row.group));
  const succeeded = end.status === 'succeeded';
  const settlement: VideoTaskSettlement = Object.assign({}, end, {
    totalTokens: succeeded ? totalTokens : end.totalTokens,
    seconds: succeeded ? seconds : end.seconds,
    cost,
    at: now,
    priceVersion: price === null ? null : pricing.version,
  });
  const won = await deps.store.part(VIDEO_TASKS).settleTask(row.id, settlement);
  // A task the upstream took is told with its record (recordSettled: retried by the sweep until it is kept); one it
  // never took has no record to carry it, and is told here, once, as best it can be.
  if (won && end.status === 'failed' && row.upstreamId === null) {
    deps.events?.emit(failedEvent(Object.assign({}, row, { errorCode: end.errorCode, errorMessage: end.errorMessage })), now).catch((err: unknown) => {
      deps.logger.warn({ err, task: row.id }, 'a failed video task could not be told to the webhooks');
    });
  }
  if (!won || row.upstreamId === null) return won;
  // A task the upstream never took ran nothing: the submission's own record says what happened.
  // As the store wrote it: a null seconds keeps the seconds asked.
  const settled = Object.assign({}, row, {
    status: end.status,
    totalTokens: settlement.totalTokens,
    seconds: settlement.seconds ?? row.seconds,
    cost,
    priceVersion: settlement.priceVersion,
    settledAt: now,
    errorCode: end.errorCode,
    errorMessage: end.errorMessage,
  });
  try {
    await recordSettled(deps, settled, now);
  } catch (err) {
    deps.logger.warn({ err, task: row.id }, "a settled video task's usage record could not be written yet; the sweep writes it");
  }
  return true;
}

/**
 * video_failed, told once per fleet: its key (the task's id) keeps a second telling out, so the settlement that won
 * and the sweep may both tell it.
 */
function failedEvent(row: VideoTaskRow): GatewayEvent {
  const data = { task_id: row.id, model: row.model, channel: row.channel, key_name: row.keyName, account: row.account, error_code: row.errorCode, error_message: row.errorMessage };
  return { type: 'video_failed', key: `video_failed:${row.id}`, data };
}

/**
 * Writes a settled task's usage record (its charge) from its row, tells a failed one to the webhooks, and notes it
 * written. Until noted, the sweep (poller.ts) does it all again: a record already written is not written twice, nor
 * an event kept twice, and an instance that stopped between the settlement and the telling loses neither.
 */
export async function recordSettled(deps: VideoDeps, row: VideoTaskRow, now = Date.now()): Promise<void> {
  await deps.store.insertUsage([usageRecord(row)]);
  if (row.status === 'failed' && deps.events !== undefined) await deps.events.emit(failedEvent(row), row.settledAt ?? now);
  await deps.store.part(VIDEO_TASKS).markRecorded(row.id, now);
}

function usageRecord(row: VideoTaskRow): UsageRecord {
  const status = row.status === 'succeeded' || row.status === 'failed' || row.status === 'cancelled' || row.status === 'expired' ? row.status : 'failed';
  const outcome = OUTCOME[status];
  const settledAt = row.settledAt ?? row.updatedAt;
  const record: UsageRecord = {
    requestId: row.id,
    ts: settledAt,
    keyId: row.keyId,
    keyName: row.keyName,
    group: row.group,
    route: routeOf(row),
    model: row.model,
    upstreamModel: row.upstreamModel,
    channel: row.channel,
    status: outcome.status,
    errorCode: outcome.code,
    stream: false,
    promptTokens: 0,
    completionTokens: status === 'succeeded' ? (row.totalTokens ?? 0) : 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    latencyMs: Math.max(0, settledAt - row.createdAt),
    ttftMs: null,
    aborted: false,
  };
  // The seconds charged at per_second (the settlement wrote them on the row), kept whatever the price: the audit
  // computes the cost again from the record.
  if (status === 'succeeded' && row.seconds !== null) Object.assign(record, { seconds: row.seconds });
  // The key's account, priced or not: its users see every task of theirs (as meter's records of the other routes).
  if (row.account !== null) Object.assign(record, { account: row.account });
  // A model without a price (an unmetered key's, or `unpriced: free`) has no cost to record.
  if (row.priceVersion === null || row.cost === null) return record;
  Object.assign(record, { cost: row.cost, priceVersion: row.priceVersion });
  // A periodic max_spend's row takes the charge too, in the period the task was admitted in (the spend row its hold
  // named), as a relayed request's draws carry it. The hold itself was dropped with the settlement: the draw finds no
  // hold to lower, only the row to add to.
  const cost = row.cost;
  const periods = row.holds.flatMap((h) => (h.spendId === undefined ? [] : [{ holdId: h.holdId, amount: cost, spendId: h.spendId }]));
  return periods.length === 0 ? record : Object.assign(record, { draws: periods });
}
