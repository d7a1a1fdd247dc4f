// A succeeded task's file, opened at its upstream for a download (the video routes', the console's): only a task that
// made one has one, and an upstream that cannot give it any more (Ark keeps results for 24 h) or cannot be reached is
// the caller's 404 or 502, never an internal error. The URL is the upstream's word, so it is checked as an asset URL
// is before the gateway fetches it (a relay used as a base URL could name an internal address): on the channel's own
// origin, or https to a public host. What comes back is served as a video, never as a page of the gateway's origin.

import { checkHost } from '../../core/http/public-url.js';
import { GatewayError } from '../../core/errors.js';
import type { ResolvedChannel } from '../../core/config/resolved.js';
import type { VideoTaskRow } from './video-task-store.js';
import { taskCall, taskChannel } from './refresh.js';
import { VideoUpstreamError, type VideoFile } from './upstream.js';
import type { VideoDeps } from './video-deps.js';
import { VIDEO_ERRORS } from './errors.js';

function unusable(row: VideoTaskRow, why: string): GatewayError {
  return new GatewayError('GW_ERR_UPSTREAM_ERROR', `The file of video ${row.id} cannot be fetched: its upstream gave ${why}.`);
}

async function checkResultUrl(deps: VideoDeps, channel: ResolvedChannel, row: VideoTaskRow, text: string): Promise<void> {
  // The mock's files are its own (providers/mock/video-tasks.ts), never fetched.
  if (channel.type === 'mock') return;
  const url = URL.canParse(text) ? new URL(text) : null;
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw unusable(row, 'no http(s) URL');
  if (url.username !== '' || url.password !== '') throw unusable(row, 'a URL with credentials');
  if (channel.baseUrl !== null && url.origin === new URL(channel.baseUrl).origin) return;
  if (url.protocol !== 'https:') throw unusable(row, 'a plain http URL on another origin than its own');
  try {
    await checkHost(url.hostname, deps.resolveHost, 3000);
  } catch {
    throw unusable(row, 'a URL whose host is not public');
  }
}

/** A video type the upstream said, else a neutral one: never text/html or a script on the gateway's origin. */
function servedType(type: string): string {
  return /^video\/[a-z0-9.+-]+$/i.test(type.split(';')[0]?.trim() ?? '') ? (type.split(';')[0]?.trim() as string) : 'application/octet-stream';
}

export async function openTaskFile(deps: VideoDeps, row: VideoTaskRow, signal: AbortSignal): Promise<VideoFile> {
  if (row.status !== 'succeeded' || row.resultUrl === null) {
    throw new GatewayError(VIDEO_ERRORS.GW_ERR_VIDEO_NOT_READY, `Video ${row.id} has no content to download: it is ${row.status}.`, { param: 'id' });
  }
  const target = taskChannel(deps, row);
  if (target === undefined) throw new GatewayError('GW_ERR_UPSTREAM_UNAVAILABLE', `The channel that made video ${row.id} is no longer configured.`);
  await checkResultUrl(deps, target.channel, row, row.resultUrl);
  let file: VideoFile;
  try {
    // No timeout of the call's own beyond the channel's: a file takes as long as it takes (the upstream's idle timeout
    // bounds a stall).
    file = await target.upstream.download(Object.assign(taskCall(target.channel, row, signal), { signal }), row.resultUrl);
  } catch (err) {
    if (err instanceof VideoUpstreamError && err.kind === 'refused') {
      throw new GatewayError('GW_ERR_UPSTREAM_NOT_FOUND', `The file of video ${row.id} is no longer available upstream (results are kept for 24 hours).`, { cause: err, upstreamStatus: err.status });
    }
    if (err instanceof VideoUpstreamError) throw new GatewayError('GW_ERR_UPSTREAM_UNAVAILABLE', `The file of video ${row.id} could not be fetched from its upstream; retry shortly.`, { cause: err, retryAfter: 1 });
    throw err;
  }
  return Object.assign({}, file, { contentType: servedType(file.contentType), discard: () => file.discard() });
}
