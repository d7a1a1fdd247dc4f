// One read of a task from its upstream, applied: a final status settles it (settle.ts), another reschedules its next
// read, later each time (half as long again, up to video.max_poll_interval_ms). Past its deadline a task is still read
// once: one that ended meanwhile is settled as it ended; one still queued is cancelled upstream (best effort) and, like
// one still running, expires. The caller holds the task's lease, so no other instance reads it meanwhile.

import type { ResolvedChannel } from '../../core/config/resolved.js';
import type { VideoTaskRow } from './video-task-store.js';
import { settleTask } from './settle.js';
import { keyFingerprint } from './key-fingerprint.js';
import type { TaskCall, UpstreamTask, VideoUpstream } from './upstream.js';
import type { VideoDeps } from './video-deps.js';
import { VIDEO_TASKS } from './store-part.js';
import { sectionOf } from '../../core/config/section.js';
import { VIDEO_SETTINGS } from './config.js';

/** Progress shown for a state Ark gives no figure for. */
const PROGRESS: Readonly<Record<string, number>> = Object.freeze({ submitting: 0, queued: 0, running: 50, succeeded: 100 });

const TOO_LATE = 'The task did not finish in time (video.task_timeout_ms).';

/** When the read after `polls` reads is due. */
export function nextPollAt(deps: VideoDeps, polls: number, now: number): number {
  const { pollIntervalMs, maxPollIntervalMs } = sectionOf(deps.config, VIDEO_SETTINGS);
  return now + Math.min(maxPollIntervalMs, Math.round(pollIntervalMs * 1.5 ** Math.min(polls, 30)));
}

/** The channel that runs `row` in this config, and its upstream; undefined when a reload removed it. */
export function taskChannel(deps: VideoDeps, row: Pick<VideoTaskRow, 'channel'>): { readonly channel: ResolvedChannel; readonly upstream: VideoUpstream } | undefined {
  const channel = deps.config.channels.find((c) => c.name === row.channel);
  const upstream = channel === undefined ? undefined : deps.videoUpstreams.get(channel.type);
  return channel === undefined || upstream === undefined ? undefined : { channel, upstream };
}

/**
 * A call about `row` on `channel`, with the upstream key that made it (a channel's keys may be of different Ark
 * projects, and a task is found only with its own project's), else the first; bounded by the channel's timeout.
 */
export function taskCall(channel: ResolvedChannel, row: Pick<VideoTaskRow, 'keyFingerprint'>, signal: AbortSignal): TaskCall {
  const key = channel.keys.find((k) => row.keyFingerprint !== null && keyFingerprint(k) === row.keyFingerprint) ?? channel.keys[0] ?? '';
  return { channel, key, signal: AbortSignal.any([signal, AbortSignal.timeout(channel.timeoutMs)]) };
}

function expire(deps: VideoDeps, row: VideoTaskRow, now: number, why: string): Promise<boolean> {
  return settleTask(deps, row, { status: 'expired', progress: row.progress, resultUrl: null, errorCode: 'TaskExpired', errorMessage: why, totalTokens: null, seconds: null }, now);
}

/** Reads again later: after a read that changed nothing, or one that failed (the time noted, so reads back off). */
function later(deps: VideoDeps, row: VideoTaskRow, now: number, task?: UpstreamTask): Promise<boolean> {
  const status = task?.status === 'queued' || task?.status === 'running' ? task.status : undefined;
  return deps.store.part(VIDEO_TASKS).updateTask(
    row.id,
    Object.assign({ nextPollAt: nextPollAt(deps, row.polls + 1, now), polls: row.polls + 1, updatedAt: now }, status === undefined ? {} : { status, progress: PROGRESS[status] ?? row.progress }),
  );
}

/** Reads `row` from its upstream once and applies the answer; never throws for the upstream's sake. */
export async function refreshTask(deps: VideoDeps, row: VideoTaskRow, signal: AbortSignal, now = Date.now()): Promise<void> {
  if (row.upstreamId === null) {
    // Its submission's lease ran out before the upstream's id was recorded (a crash, or a store that failed): no answer
    // can come any more, and nothing ran that the gateway knows of.
    await expire(deps, row, now, 'The task was never accepted by its upstream.');
    return;
  }
  const late = now >= row.expiresAt;
  const target = taskChannel(deps, row);
  if (target === undefined) {
    // A reload removed its channel: read again later (a reload may bring it back) until the deadline.
    if (late) await expire(deps, row, now, TOO_LATE);
    else await later(deps, row, now);
    return;
  }
  let task: UpstreamTask;
  try {
    task = await target.upstream.get(taskCall(target.channel, row, signal), row.upstreamId);
  } catch (err) {
    // A 404 is no end either: a key of another project, or a base URL changed by a reload, says it too. Read again
    // until the deadline.
    deps.logger.warn({ err, task: row.id, channel: row.channel }, 'reading a video task from its upstream failed; retrying later');
    if (late) await expire(deps, row, now, TOO_LATE);
    else await later(deps, row, now);
    return;
  }
  if (task.status === 'succeeded' || task.status === 'failed' || task.status === 'cancelled' || task.status === 'expired') {
    await settleTask(
      deps,
      row,
      {
        status: task.status,
        progress: task.status === 'succeeded' ? 100 : row.progress,
        resultUrl: task.videoUrl,
        errorCode: task.error?.code ?? null,
        errorMessage: task.error?.message ?? null,
        totalTokens: task.totalTokens,
        seconds: task.duration,
      },
      now,
    );
    return;
  }
  if (!late) {
    await later(deps, row, now, task);
    return;
  }
  // Given up on: a queued task is cancelled so that it never runs (and is billed) unseen; a running one cannot be.
  if (task.status === 'queued') await target.upstream.cancel(taskCall(target.channel, row, signal), row.upstreamId).catch(() => undefined);
  await expire(deps, row, now, TOO_LATE);
}
