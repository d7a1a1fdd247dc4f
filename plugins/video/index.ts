// video (terminal): video generation tasks, in two client shapes over one task model. new-api's
// POST /v1/video/generations + GET /v1/video/generations/{task_id}, and OpenAI's Videos API: POST /v1/videos,
// GET /v1/videos[/{id}[/content]], DELETE /v1/videos/{id}. Tasks run on the video channels (Seedance on volcengine,
// and the mock); the gateway keeps each (core/video): its public id, its key, the money it set aside and, when it ends,
// its charge. Only the key that made a task reaches it.

import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, Plugin, PluginFactory, RelayResult } from '../../core/pipeline/plugin.js';
import { freshTask, ownTask } from '../../core/video/read.js';
import { submitTask } from '../../core/video/submit.js';
import { readTaskRequest } from '../../core/video/task-request.js';
import type { VideoDeps } from '../../core/video/video-deps.js';
import { cancelTask } from './cancel.js';
import { download } from './download.js';
import { listTasks } from './list.js';
import type { VideoOptions } from './options.gen.js';
import { json } from './json.js';
import { videoObject } from './video-object.js';

type Handler = (ctx: RequestContext, deps: VideoDeps, key: AuthedKey, owner: string) => Promise<RelayResult>;

const HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ['/v1/video/generations', (ctx, deps, key) => create(ctx, deps, key, 'generations')],
  ['/v1/videos', (ctx, deps, key) => create(ctx, deps, key, 'openai')],
  ['GET /v1/video/generations/{task_id}', (ctx, deps, key, owner) => read(ctx, deps, key, owner, 'task_id')],
  ['GET /v1/videos/{id}', (ctx, deps, key, owner) => read(ctx, deps, key, owner, 'id')],
  ['GET /v1/videos', (ctx, deps, key) => listTasks(ctx, deps, key)],
  ['GET /v1/videos/{id}/content', (ctx, deps, key, owner) => download(ctx, deps, key, owner)],
  ['DELETE /v1/videos/{id}', (ctx, deps, key) => cancelTask(ctx, deps, key)],
]);

export const videoPlugin: PluginFactory<VideoOptions> = {
  name: 'video',
  create(_options, services: GatewayServices): Plugin {
    const deps: VideoDeps = services;
    // A client's GET that reads a task from its upstream holds the task's lease under the request's own name.
    const owner = (ctx: RequestContext): string => `${services.instances.id}:read:${ctx.id}`;
    return {
      name: 'video',
      relay(ctx) {
        const key = ctx.key;
        if (key === null) throw new GatewayError('GW_ERR_AUTH_MISSING_KEY', 'An API key is required.');
        const handler = HANDLERS.get(ctx.route);
        if (handler === undefined) throw new GatewayError('GW_ERR_ROUTE_NOT_FOUND', `The video plugin does not serve ${ctx.route}.`);
        return handler(ctx, deps, key, owner(ctx));
      },
    };
  },
};

async function create(ctx: RequestContext, deps: VideoDeps, key: AuthedKey, shape: 'openai' | 'generations'): Promise<RelayResult> {
  // The whole body: a large one's head leaves long nested strings (text, signed URLs, data: images) undecoded.
  const request = readTaskRequest(shape, ctx.request.json, ctx.request.model);
  const row = await submitTask(deps, key, shape, request, ctx.abort.signal);
  ctx.channel = row.channel;
  ctx.upstreamModel = row.upstreamModel;
  return json(200, videoObject(row));
}

async function read(ctx: RequestContext, deps: VideoDeps, key: AuthedKey, owner: string, param: string): Promise<RelayResult> {
  const row = await freshTask(deps, await ownTask(deps, key, ctx.params?.[param] ?? ''), owner, ctx.abort.signal);
  return json(200, videoObject(row));
}

export default videoPlugin;
