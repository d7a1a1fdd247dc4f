// /console/api/videos: an account's video tasks, newest first, each with its key, status, money and, once it
// succeeded, the console's download path; and GET /console/api/videos/{id}/content, that download, relayed from the
// upstream's file as it arrives (as GET /v1/videos/{id}/content does for the key that made the task). An account's
// users reach their own account's tasks, read-only; the operator any. Neither the upstream's task id nor its result
// URL is ever shown: the URL is a signed link into the operator's storage, and the id the upstream's own.

import { formatMoney } from '../../core/money/decimal.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, RelayResult } from '../../core/pipeline/plugin.js';
import type { VideoTaskRow } from './video-task-store.js';
import { taskNotFound } from './read.js';
import { openTaskFile } from './task-file.js';
import { videoDepsOf } from './services.js';
import { offsetParam } from '../../core/console/query-params.js';
import { consoleJson } from '../../core/console/console-answer.js';
import { requireAccount, scopeOf } from '../../core/console/scope.js';
import { sessionOf } from '../../core/console/session-slot.js';
import { VIDEO_TASKS } from './store-part.js';

const PAGE = 50;
/** The prompt is the customer's own text and may be 4,000 characters: a table row shows its start. */
const PROMPT_CHARS = 200;

function shortPrompt(prompt: string | null): string | null {
  if (prompt === null) return null;
  // By code points: a cut never splits a surrogate pair into a lone half.
  const chars = [...prompt];
  return chars.length <= PROMPT_CHARS ? prompt : `${chars.slice(0, PROMPT_CHARS - 1).join('')}…`;
}

/** Why a task ended without a video, as the video API words it; null for any other status. */
function errorOf(row: VideoTaskRow): { code: string; message: string } | null {
  if (row.status === 'cancelled') return { code: 'cancelled', message: 'The task was cancelled.' };
  if (row.status === 'expired') return { code: 'expired', message: row.errorMessage ?? 'The task did not finish in time.' };
  if (row.status === 'failed') return { code: row.errorCode ?? 'generation_failed', message: row.errorMessage ?? 'The video could not be generated.' };
  return null;
}

const isoOf = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** schemas/console/video-task.schema.json */
function shownTask(row: VideoTaskRow): Record<string, unknown> {
  const downloadable = row.status === 'succeeded' && row.resultUrl !== null;
  return {
    id: row.id,
    account: row.account,
    key: { id: row.keyId, name: row.keyName },
    model: row.model,
    channel: row.channel,
    status: row.status,
    progress: row.progress,
    prompt: shortPrompt(row.prompt),
    created_at: new Date(row.createdAt).toISOString(),
    completed_at: isoOf(row.completedAt),
    seconds: row.seconds,
    size: row.size,
    reserved: formatMoney(row.reserved),
    cost: row.cost === null ? null : formatMoney(row.cost),
    error: errorOf(row),
    download: downloadable ? `/console/api/videos/${encodeURIComponent(row.id)}/content` : null,
  };
}

/** A page of `account`'s tasks (`?key=` narrows it to one of its keys, by id), newest first. */
export async function videoTasksPage(services: GatewayServices, account: string, query: URLSearchParams): Promise<Record<string, unknown>> {
  const offset = offsetParam(query);
  const key = query.get('key') ?? '';
  const found = await services.store.part(VIDEO_TASKS).accountTasks(account, key === '' ? { offset, limit: PAGE } : { offset, limit: PAGE, keyId: key });
  return { object: 'list', account, currency: services.config.pricing.currency, data: found.rows.map(shownTask), total: found.total, offset };
}

/**
 * A succeeded task's MP4 for a user of its account (`account`; null: the operator, any task). Another account's task
 * is answered as a missing one, so a user learns nothing of ids that are not theirs.
 */
export async function videoContent(ctx: RequestContext, services: GatewayServices, account: string | null): Promise<RelayResult> {
  const id = ctx.params?.['id'] ?? '';
  const row = await services.store.part(VIDEO_TASKS).task(id);
  if (row === undefined || (account !== null && row.account !== account)) throw taskNotFound(id);
  ctx.channel = row.channel;
  const file = await openTaskFile(videoDepsOf(services), row, ctx.abort.signal);
  const headers: Record<string, string> = {
    'content-type': file.contentType,
    // The page's link saves the file rather than opening the player in place of the console.
    'content-disposition': `attachment; filename="${row.id}.mp4"`,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
  if (file.contentLength !== null) headers['content-length'] = String(file.contentLength);
  return { kind: 'bytes', status: 200, headers, body: file.body };
}

/** GET /console/api/videos: one account's tasks at a time (accountTasks(null) is the unmetered keys'), so the operator names it. */
export async function listConsoleTasks(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  const query = new URLSearchParams(ctx.query);
  const account = requireAccount(await scopeOf(services, sessionOf(ctx).user, query), 'video tasks to list');
  return consoleJson(200, await videoTasksPage(services, account, query));
}

/** GET /console/api/videos/{id}/content: a user's own account's tasks only; the operator's, any (the id names the task). */
export function downloadConsoleTask(ctx: RequestContext, services: GatewayServices): Promise<RelayResult> {
  return videoContent(ctx, services, sessionOf(ctx).user.account);
}
