// GET /v1/videos: the caller's own tasks, a page at a time, as OpenAI lists them ({object: "list", data, first_id,
// last_id, has_more}; `after`, `limit` 1-100 (default 20) and `order` asc|desc (default desc) in the query).

import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { RelayResult } from '../../core/pipeline/plugin.js';
import type { VideoDeps } from './video-deps.js';
import { jsonAnswer as json } from '../../core/pipeline/json-answer.js';
import { videoObject } from './video-object.js';
import { VIDEO_TASKS } from './store-part.js';

export async function listTasks(ctx: RequestContext, deps: VideoDeps, key: AuthedKey): Promise<RelayResult> {
  const query = new URLSearchParams(ctx.query.startsWith('?') ? ctx.query.slice(1) : ctx.query);
  const limitText = query.get('limit') ?? '20';
  const limit = /^\d{1,3}$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= 100)) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', "Invalid 'limit': expected a whole number from 1 to 100.", { param: 'limit' });
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', "Invalid 'order': expected 'asc' or 'desc'.", { param: 'order' });
  const after = query.get('after') ?? undefined;
  // One more than asked says whether there is a next page.
  const rows = await deps.store.part(VIDEO_TASKS).keyTasks(Object.assign({ keyId: key.id, limit: limit + 1, ascending: order === 'asc' }, after === undefined ? {} : { after }));
  const page = rows.slice(0, limit).filter((row) => row.account === (key.account ?? null));
  return json(200, { object: 'list', data: page.map(videoObject), first_id: page[0]?.id ?? null, last_id: page[page.length - 1]?.id ?? null, has_more: rows.length > limit });
}
