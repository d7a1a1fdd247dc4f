// Video tasks (Seedance on volcengine channels, and the mock): made, read, listed, downloaded and cancelled by the key
// that made them only (tasks.ts). A task's money is its own (reserved at submission, settled when it ends:
// task-money.ts, settle.ts), so its creation has no quota step; meter records the submission.

import { consoleRoute } from '../../core/endpoints/route-groups.js';
import type { BodyReads, ChainStep } from '../../core/endpoints/registry.js';
import type { Feature } from '../../core/feature/feature.js';
import { downloadConsoleTask, listConsoleTasks } from './console-videos.js';
import { videoPollerJob } from './poller-job.js';
import { videoServices } from './services.js';
import { videoStorePart } from './store-part.js';
import { videoConfig } from './config.js';
import { cancelOwnTask, createTask, downloadTask, listOwnTasks, readTask } from './tasks.js';
import { createOpenAIVideosFormat, createVideoGenerationsFormat, createVideoTaskFormat } from './format.js';

const VIDEO_CREATE: readonly ChainStep[] = ['auth', 'rate-limit', 'meter'];
const VIDEO_READ: readonly ChainStep[] = ['auth'];
const VIDEO_CREATE_READS: BodyReads = { names: ['seconds', 'size'], texts: ['prompt'] };

export interface VideoFeatureOptions {
  /** How often the poller looks for due tasks (tests look often); default the poll interval, at most 1 s. */
  readonly pollTickMs?: number;
}

export function createVideoFeature(options: VideoFeatureOptions = {}): Feature {
  return {
    name: 'video',
    // Ark's data plane runs the tasks; the mock runs them too.
    wires: [{ name: 'video', native: ['volcengine', 'mock'] }],
    routes: [
      { method: 'POST', path: '/v1/video/generations', wire: 'video', createFormat: createVideoGenerationsFormat, chain: VIDEO_CREATE, handler: createTask('generations'), reads: VIDEO_CREATE_READS },
      { method: 'GET', path: '/v1/video/generations/{task_id}', wire: 'video', createFormat: createVideoTaskFormat, chain: VIDEO_READ, handler: readTask('task_id') },
      { method: 'POST', path: '/v1/videos', wire: 'video', createFormat: createOpenAIVideosFormat, chain: VIDEO_CREATE, handler: createTask('openai'), reads: VIDEO_CREATE_READS },
      { method: 'GET', path: '/v1/videos', wire: 'video', createFormat: createVideoTaskFormat, chain: VIDEO_READ, handler: listOwnTasks, reads: { query: ['after', 'limit', 'order'] } },
      { method: 'GET', path: '/v1/videos/{id}', wire: 'video', createFormat: createVideoTaskFormat, chain: VIDEO_READ, handler: readTask('id') },
      { method: 'GET', path: '/v1/videos/{id}/content', wire: 'video', createFormat: createVideoTaskFormat, chain: VIDEO_READ, handler: downloadTask },
      { method: 'DELETE', path: '/v1/videos/{id}', wire: 'video', createFormat: createVideoTaskFormat, chain: VIDEO_READ, handler: cancelOwnTask },
      consoleRoute('GET', '/console/api/videos', listConsoleTasks, 'user', { query: ['offset', 'key', 'account'] }),
      consoleRoute('GET', '/console/api/videos/{id}/content', downloadConsoleTask, 'user'),
    ],
    // Unfinished tasks are the store's: each instance reads those due, one instance at a time per task.
    services: [videoServices],
    store: videoStorePart,
    config: videoConfig,
    jobs: (env) => [videoPollerJob(env, options.pollTickMs)],
  };
}

export const videoFeature: Feature = createVideoFeature();
