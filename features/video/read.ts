// A caller's reads of its tasks: only the key that made a task sees it (any other key, whatever it knows, gets the
// 404 of a task that does not exist); a GET of an unfinished task not read for video.refresh_after_ms reads it from
// the upstream at once (under the task's lease, so no poller reads it meanwhile), then answers.

import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { VideoTaskRow } from './video-task-store.js';
import { VIDEO_LEASE_MS } from './poller.js';
import { refreshTask } from './refresh.js';
import type { VideoDeps } from './video-deps.js';
import { VIDEO_ERRORS } from './errors.js';
import { VIDEO_TASKS } from './store-part.js';
import { sectionOf } from '../../core/config/section.js';
import { VIDEO_SETTINGS } from './config.js';

export function taskNotFound(id: string): GatewayError {
  return new GatewayError(VIDEO_ERRORS.GW_ERR_VIDEO_NOT_FOUND, `No video task found with id '${id.slice(0, 128)}'.`, { param: 'id' });
}

/** The caller's own task `id`, or the not-found error. */
export async function ownTask(deps: VideoDeps, key: AuthedKey, id: string): Promise<VideoTaskRow> {
  const row = await deps.store.part(VIDEO_TASKS).task(id);
  // Of the key and of its account: a declared key declared again for another account must not see the first's.
  if (row === undefined || row.keyId !== key.id || row.account !== (key.account ?? null)) throw taskNotFound(id);
  return row;
}

/** `row` as it is now: read from its upstream first when it is unfinished and stale (under the lease `owner`, the request's own). */
export async function freshTask(deps: VideoDeps, row: VideoTaskRow, owner: string, signal: AbortSignal): Promise<VideoTaskRow> {
  const now = Date.now();
  if (row.settledAt !== null || row.upstreamId === null || now - row.updatedAt < sectionOf(deps.config, VIDEO_SETTINGS).refreshAfterMs) return row;
  const store = deps.store.part(VIDEO_TASKS);
  if (!(await store.claimTask(row.id, owner, now, now + VIDEO_LEASE_MS))) return row;
  try {
    // As it is under the lease (a poller may have read it since).
    const current = await store.task(row.id);
    if (current !== undefined && current.settledAt === null) await refreshTask(deps, current, signal, now);
  } finally {
    await store.releaseLease(owner, row.id).catch(() => undefined);
  }
  return (await store.task(row.id)) ?? row;
}
