// One read of a task from its upstream, applied: a final status settles it (settle.ts), another reschedules its next
// read, later each time (half as long again, up to video.max_poll_interval_ms). A task past its deadline expires, and
// one the upstream never took (a crash mid-submission) expires once its channel's timeout has surely passed. The
// caller holds the task's lease, so no other instance reads it meanwhile.

import type { ResolvedChannel } from '../config/resolved.js';
import type { VideoTaskRow } from '../store/video-task-store.js';
import { settleTask } from './settle.js';
import { VideoUpstreamError, type UpstreamTask, type VideoUpstream } from './upstream.js';
import type { VideoDeps } from './video-deps.js';

/** Progress shown for a state Ark gives no figure for. */
const PROGRESS: Readonly<Record<string, number>> = Object.freeze({ submitting: 0, queued: 0, running: 50, succeeded: 100 });

/** When the read after `polls` reads is due. */
export function nextPollAt(deps: VideoDeps, polls: number, now: number): number {
  const { pollIntervalMs, maxPollIntervalMs } = deps.config.video;
  return now + Math.min(maxPollIntervalMs, Math.round(pollIntervalMs * 1.5 ** Math.min(polls, 30)));
}

/** The channel that runs `row` in this config, and its upstream; undefined when a reload removed it. */
export function taskChannel(deps: VideoDeps, row: Pick<VideoTaskRow, 'channel'>): { readonly channel: ResolvedChannel; readonly upstream: VideoUpstream } | undefined {
  const channel = deps.config.channels.find((c) => c.name === row.channel);
  const upstream = channel === undefined ? undefined : deps.videoUpstreams.get(channel.type);
  return channel === undefined || upstream === undefined ? undefined : { channel, upstream };
}

/** Applies what the upstream said of `row`. */
async function apply(deps: VideoDeps, row: VideoTaskRow, task: UpstreamTask, now: number): Promise<void> {
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
  await deps.store.videoTasks.updateTask(row.id, { status: task.status, progress: PROGRESS[task.status] ?? row.progress, nextPollAt: nextPollAt(deps, row.polls + 1, now), polls: row.polls + 1, updatedAt: now });
}

function expire(deps: VideoDeps, row: VideoTaskRow, now: number, why: string): Promise<boolean> {
  return settleTask(deps, row, { status: 'expired', progress: row.progress, resultUrl: null, errorCode: 'TaskExpired', errorMessage: why, totalTokens: null, seconds: null }, now);
}

/** Reads `row` from its upstream once and applies the answer; never throws for the upstream's sake. */
export async function refreshTask(deps: VideoDeps, row: VideoTaskRow, signal: AbortSignal, now = Date.now()): Promise<void> {
  const target = taskChannel(deps, row);
  if (row.upstreamId === null) {
    // Left by a crash between taking the task's money and the upstream's answer: once no answer can still come, nothing
    // ran that the gateway knows of.
    const grace = (target?.channel.timeoutMs ?? 60_000) * 2;
    if (now - row.createdAt > grace) await expire(deps, row, now, 'The task was never accepted by its upstream.');
    return;
  }
  if (now >= row.expiresAt) {
    await expire(deps, row, now, 'The task did not finish in time (video.task_timeout_ms).');
    return;
  }
  if (target === undefined) {
    // A reload removed its channel: read again later (a reload may bring it back) until the deadline.
    await deps.store.videoTasks.updateTask(row.id, { nextPollAt: nextPollAt(deps, row.polls + 1, now), polls: row.polls + 1, updatedAt: row.updatedAt });
    return;
  }
  try {
    const task = await target.upstream.get({ channel: target.channel, key: target.channel.keys[0] ?? '', signal }, row.upstreamId);
    await apply(deps, row, task, now);
  } catch (err) {
    if (err instanceof VideoUpstreamError && err.kind === 'refused' && err.status === 404) {
      // Ark keeps a task for 7 days: one it no longer knows will never say more.
      await expire(deps, row, now, 'The upstream no longer knows the task.');
      return;
    }
    deps.logger.warn({ err, task: row.id, channel: row.channel }, 'reading a video task from its upstream failed; retrying later');
    await deps.store.videoTasks.updateTask(row.id, { nextPollAt: nextPollAt(deps, row.polls + 1, now), polls: row.polls + 1, updatedAt: row.updatedAt });
  }
}
