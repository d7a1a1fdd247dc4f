// GET /v1/videos/{id}/content: a completed task's MP4, fetched from the upstream's URL and relayed as it arrives
// (never buffered whole: a video is tens of MB). Only `variant=video` (the default): Ark makes no thumbnail or
// spritesheet.

import { freshTask, GatewayError, ownTask, taskChannel, type AuthedKey, type RelayResult, type RequestContext, type VideoDeps } from '../../core/index.js';

export async function download(ctx: RequestContext, deps: VideoDeps, key: AuthedKey, owner: string): Promise<RelayResult> {
  const variant = new URLSearchParams(ctx.query.startsWith('?') ? ctx.query.slice(1) : ctx.query).get('variant') ?? 'video';
  if (variant !== 'video') throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', `Invalid 'variant': only 'video' can be downloaded here.`, { param: 'variant' });
  const row = await freshTask(deps, await ownTask(deps, key, ctx.params?.['id'] ?? ''), owner, ctx.abort.signal);
  const target = taskChannel(deps, row);
  if (row.status !== 'succeeded' || row.resultUrl === null || target === undefined) {
    throw new GatewayError('GW_ERR_VIDEO_NOT_READY', `Video ${row.id} has no content to download: it is ${row.status}.`, { param: 'id' });
  }
  ctx.channel = row.channel;
  const file = await target.upstream.download({ channel: target.channel, key: target.channel.keys[0] ?? '', signal: ctx.abort.signal }, row.resultUrl);
  const headers: Record<string, string> = { 'content-type': file.contentType };
  if (file.contentLength !== null) headers['content-length'] = String(file.contentLength);
  return { kind: 'bytes', status: 200, headers, body: file.body };
}
