// A task's end, applied once. The usage record comes first (its request id is the task's id, so a second settler's
// record is left out and the task is charged once), then the compare-and-set on the row (one settler wins), then the
// task's holds are dropped. A crash between two steps is finished by the next settler: the record is already there,
// the row still unsettled.

import type { ErrorCode } from '../errors.js';
import type { UsageRecord } from '../store/store.js';
import type { VideoTaskRow, VideoTaskSettlement } from '../store/video-task-store.js';
import { holdOwner, taskCost } from './task-money.js';
import type { VideoDeps } from './video-deps.js';

export type TaskEnd = Omit<VideoTaskSettlement, 'cost' | 'at'>;

/** The route a task was made on (its record names it, as a request's does). */
export function routeOf(row: Pick<VideoTaskRow, 'shape'>): string {
  return row.shape === 'openai' ? '/v1/videos' : '/v1/video/generations';
}

/** A record's status and code for a task's end: only a video made is a success. */
const OUTCOME: Readonly<Record<TaskEnd['status'], { readonly status: number; readonly code: ErrorCode | null }>> = Object.freeze({
  succeeded: { status: 200, code: null },
  failed: { status: 502, code: 'GW_ERR_VIDEO_TASK_FAILED' },
  cancelled: { status: 409, code: 'GW_ERR_VIDEO_TASK_CANCELLED' },
  expired: { status: 504, code: 'GW_ERR_VIDEO_TASK_EXPIRED' },
});

/** Settles `row` as `end` says; whether this call was the one that did. */
export async function settleTask(deps: VideoDeps, row: VideoTaskRow, end: TaskEnd, now = Date.now()): Promise<boolean> {
  const { pricing } = deps.config;
  const price = pricing.priceOf(row.model);
  const tokens = end.status === 'succeeded' ? (end.totalTokens ?? 0) : 0;
  const cost = price === null ? 0n : taskCost(price, tokens, pricing.multiplierOf(row.group));
  // A task the upstream never took (refused at submission, or left by a crash before it answered) ran nothing: the
  // submission's own record says what happened.
  if (row.upstreamId !== null) await deps.store.insertUsage([usageRecord(row, end, price === null ? undefined : cost, pricing.version, now)]);
  const won = await deps.store.videoTasks.settleTask(row.id, Object.assign({ cost, at: now }, end));
  await deps.store.ledger.releaseHolds(holdOwner(row.id));
  return won;
}

function usageRecord(row: VideoTaskRow, end: TaskEnd, cost: bigint | undefined, priceVersion: string, now: number): UsageRecord {
  const outcome = OUTCOME[end.status];
  const record: UsageRecord = {
    requestId: row.id,
    ts: now,
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
    completionTokens: end.status === 'succeeded' ? (end.totalTokens ?? 0) : 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    latencyMs: Math.max(0, now - row.createdAt),
    ttftMs: null,
    aborted: false,
  };
  if (cost === undefined) return record;
  // The holds shrink by what the charge uses of them in the same transaction, then go (releaseHolds).
  const draws = row.holds.map((hold) => ({ holdId: hold.holdId, amount: hold.amount < cost ? hold.amount : cost }));
  return Object.assign(record, { cost, priceVersion }, row.account === null ? {} : { account: row.account }, { draws });
}
