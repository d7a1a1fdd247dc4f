// DELETE /v1/videos/{id}: cancels a queued task, which is then settled as cancelled: charged nothing, its reservation
// released. Ark's DELETE also deletes a finished task (its record gone, a later read a 404), so the gateway first reads
// the task from the upstream and sends the DELETE only for one still queued there; a task running or ended is a 409.

import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { RelayResult } from '../../core/pipeline/plugin.js';
import { ownTask } from './read.js';
import { refreshTask, taskCall, taskChannel } from './refresh.js';
import { settleTask } from './settle.js';
import { VideoUpstreamError } from './upstream.js';
import type { VideoDeps } from './video-deps.js';
import { jsonAnswer as json } from '../../core/pipeline/json-answer.js';
import { VIDEO_ERRORS } from './errors.js';

function notCancellable(id: string, status: string): GatewayError {
  return new GatewayError(VIDEO_ERRORS.GW_ERR_VIDEO_NOT_CANCELLABLE, `Video ${id} cannot be cancelled: only a queued task can (it is ${status}).`, { param: 'id' });
}

export async function cancelTask(ctx: RequestContext, deps: VideoDeps, key: AuthedKey): Promise<RelayResult> {
  const row = await ownTask(deps, key, ctx.params?.['id'] ?? '');
  const target = taskChannel(deps, row);
  if (row.settledAt !== null || row.upstreamId === null || target === undefined) throw notCancellable(row.id, row.status);
  ctx.channel = row.channel;
  // Not the caller's signal: a cancel sent must be recorded.
  const call = taskCall(target.channel, row, new AbortController().signal);
  try {
    const now = await target.upstream.get(call, row.upstreamId);
    if (now.status !== 'queued') {
      // What it is now is applied (a final status settles it), and the caller told.
      await refreshTask(deps, row, ctx.abort.signal);
      throw notCancellable(row.id, now.status);
    }
    await target.upstream.cancel(call, row.upstreamId);
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    if (err instanceof VideoUpstreamError && err.kind === 'refused') throw notCancellable(row.id, 'running');
    throw new GatewayError('GW_ERR_UPSTREAM_UNAVAILABLE', 'The upstream could not be reached to cancel the task; retry shortly.', { cause: err, retryAfter: 1 });
  }
  await settleTask(deps, row, { status: 'cancelled', progress: row.progress, resultUrl: null, errorCode: 'cancelled', errorMessage: 'Cancelled by the caller.', totalTokens: null, seconds: null });
  return json(200, { id: row.id, object: 'video.deleted', deleted: true });
}
