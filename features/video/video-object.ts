// A task as its callers read it. OpenAI's video object ({id, object: "video", status: queued|in_progress|completed|
// failed, progress, created_at, completed_at, expires_at, ...}, times in seconds) for both shapes; new-api's callers
// also get `task_id` and, once done, `video_url`: the gateway's download path (the upstream's signed URL names the
// operator's storage, and expires).

import type { VideoTaskRow, VideoTaskStatus } from './video-task-store.js';

/** How long after completion the file can be downloaded (Ark's result URLs last 24 h). */
const DOWNLOADABLE_MS = 24 * 3600 * 1000;

const OPENAI_STATUS: Readonly<Record<VideoTaskStatus, string>> = Object.freeze({
  submitting: 'queued',
  queued: 'queued',
  running: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  cancelled: 'failed',
  expired: 'failed',
});

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

function errorOf(row: VideoTaskRow): Record<string, string> | null {
  if (row.status === 'cancelled') return { code: 'cancelled', message: 'The task was cancelled.' };
  if (row.status === 'expired') return { code: 'expired', message: row.errorMessage ?? 'The task did not finish in time.' };
  if (row.status === 'failed') return { code: row.errorCode ?? 'generation_failed', message: row.errorMessage ?? 'The video could not be generated.' };
  return null;
}

export function videoObject(row: VideoTaskRow): Record<string, unknown> {
  const video: Record<string, unknown> = {
    id: row.id,
    object: 'video',
    model: row.model,
    status: OPENAI_STATUS[row.status],
    progress: row.progress,
    created_at: seconds(row.createdAt),
    completed_at: seconds(row.completedAt),
    expires_at: row.status === 'succeeded' && row.completedAt !== null ? seconds(row.completedAt + DOWNLOADABLE_MS) : null,
    prompt: row.prompt,
    seconds: row.seconds === null ? null : String(row.seconds),
    size: row.size,
    remixed_from_video_id: null,
    error: errorOf(row),
  };
  if (row.shape === 'generations') {
    video['task_id'] = row.id;
    if (row.status === 'succeeded') video['video_url'] = `/v1/videos/${encodeURIComponent(row.id)}/content`;
  }
  return video;
}
