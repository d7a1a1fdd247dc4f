// GET /v1/videos/{id}/content: a completed task's MP4, fetched from the upstream's URL and relayed as it arrives
// (never buffered whole: a video is tens of MB). Only `variant=video` (the default): Ark makes no thumbnail or
// spritesheet.

import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { RelayResult } from '../../core/pipeline/plugin.js';
import { freshTask, ownTask } from './read.js';
import { openTaskFile } from './task-file.js';
import type { VideoDeps } from './video-deps.js';

export async function download(ctx: RequestContext, deps: VideoDeps, key: AuthedKey, owner: string): Promise<RelayResult> {
  const variant = new URLSearchParams(ctx.query.startsWith('?') ? ctx.query.slice(1) : ctx.query).get('variant') ?? 'video';
  if (variant !== 'video') throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid 'variant': only 'video' can be downloaded here.`, { param: 'variant' });
  const row = await freshTask(deps, await ownTask(deps, key, ctx.params?.['id'] ?? ''), owner, ctx.abort.signal);
  ctx.channel = row.channel;
  const file = await openTaskFile(deps, row, ctx.abort.signal);
  const headers: Record<string, string> = { 'content-type': file.contentType, 'x-content-type-options': 'nosniff' };
  if (file.contentLength !== null) headers['content-length'] = String(file.contentLength);
  return { kind: 'bytes', status: 200, headers, body: file.body };
}
