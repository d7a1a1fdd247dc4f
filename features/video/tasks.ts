// The video routes' handlers: tasks in two client shapes over one task model. new-api's POST /v1/video/generations +
// GET /v1/video/generations/{task_id}, and OpenAI's Videos API: POST /v1/videos, GET /v1/videos[/{id}[/content]],
// DELETE /v1/videos/{id}. Tasks run on the video channels (Seedance on volcengine, and the mock); the gateway keeps
// each (video-task-store.ts): its public id, its key, the money it set aside and, when it ends, its charge. Only the key that
// made a task reaches it.

import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import { jsonAnswer } from '../../core/pipeline/json-answer.js';
import { SUBJECT } from '../../core/pipeline/request-slots.js';
import type { GatewayServices, RelayResult, RouteHandler } from '../../core/pipeline/plugin.js';
import { freshTask, ownTask } from './read.js';
import { submitTask } from './submit.js';
import { readTaskRequest, type TaskShape } from './task-request.js';
import type { VideoDeps } from './video-deps.js';
import { cancelTask } from './cancel.js';
import { download } from './download.js';
import { listTasks } from './list.js';
import { videoDepsOf } from './services.js';
import { videoObject } from './video-object.js';

type KeyedHandler = (ctx: RequestContext, deps: VideoDeps, key: AuthedKey, owner: string) => Promise<RelayResult>;

/** A handler of the caller's own tasks: the key its route's auth admitted, and the name its reads lease a task under. */
function keyed(handler: KeyedHandler): RouteHandler {
  return (ctx: RequestContext, services: GatewayServices) => {
    if (ctx.key === null) throw new GatewayError('GW_ERR_AUTH_MISSING_KEY', 'An API key is required.');
    // A client's GET that reads a task from its upstream holds the task's lease under the request's own name.
    return handler(ctx, videoDepsOf(services), ctx.key, `${services.instances.id}:read:${ctx.id}`);
  };
}

/** POST /v1/video/generations, POST /v1/videos */
export function createTask(shape: TaskShape): RouteHandler {
  return keyed(async (ctx, deps, key) => {
    // The whole body: a large one's head leaves long nested strings (text, signed URLs, data: images) undecoded.
    const request = readTaskRequest(shape, ctx.request.json, ctx.request.model);
    const row = await submitTask(deps, key, shape, request, ctx.abort.signal);
    ctx.channel = row.channel;
    ctx.upstreamModel = row.upstreamModel;
    // The submission's record names its task (whose own record, at its end, has the task's id as request id).
    ctx.set(SUBJECT, `video:${row.id}`);
    return jsonAnswer(200, videoObject(row));
  });
}

/** GET /v1/video/generations/{task_id}, GET /v1/videos/{id}: the task as it now is (read upstream when due). */
export function readTask(param: string): RouteHandler {
  return keyed(async (ctx, deps, key, owner) => {
    const row = await freshTask(deps, await ownTask(deps, key, ctx.params?.[param] ?? ''), owner, ctx.abort.signal);
    return jsonAnswer(200, videoObject(row));
  });
}

/** GET /v1/videos */
export const listOwnTasks: RouteHandler = keyed((ctx, deps, key) => listTasks(ctx, deps, key));
/** GET /v1/videos/{id}/content */
export const downloadTask: RouteHandler = keyed(download);
/** DELETE /v1/videos/{id} */
export const cancelOwnTask: RouteHandler = keyed((ctx, deps, key) => cancelTask(ctx, deps, key));
