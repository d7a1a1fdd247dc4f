// The mock channel's video tasks: Ark's task API answered offline. The mock keeps nothing: a task's id says when it
// was made, how long and how big its clip is and whether it will fail, and its state is read from the clock, so a
// task outlives a restart and any instance of the gateway can answer for it. A task is queued, then running, then
// succeeded (or failed, when its prompt holds FAIL_HOOK); every succeeded task downloads the same small MP4.

import { randomBytes } from 'node:crypto';
import { DEFAULT_RESOLUTION, DEFAULT_SECONDS, MAX_SECONDS } from './video-size.js';
import { type TaskCall, type UpstreamTask, type VideoFile, type VideoUpstream, VideoUpstreamError } from './upstream.js';
import { sampleVideo } from './sample-video.js';

/** Written in a text prompt, makes the task fail once it has run: the demo's way to show a failed task. */
export const MOCK_VIDEO_FAIL_HOOK = '[mock:fail]';
/** The scheme of a mock task's `videoUrl`: only this upstream's `download` reads it. */
export const MOCK_VIDEO_URL_PREFIX = 'mock://video/';

const QUEUED_MS = 1000;
const RUNNING_MS = 2000;
/** Ark's frame rate for Seedance, in its token formula. */
const FPS = 24;

/**
 * A 16:9 frame's size at each of Ark's resolutions: what the mock bills by. The ratio asked for is ignored (another
 * ratio holds about as many pixels), so a mock task's tokens depend on its resolution and seconds only.
 */
const FRAME_720P = Object.freeze({ width: 1280, height: 720 });
const FRAMES: Readonly<Record<string, { readonly width: number; readonly height: number }>> = Object.freeze({
  '480p': Object.freeze({ width: 854, height: 480 }),
  '720p': FRAME_720P,
  '1080p': Object.freeze({ width: 1920, height: 1080 }),
});

/** `cgt-mock-<made, ms base36>-<seconds>-<resolution>-<ok|fail>-<random>`; Ark's own read `cgt-<stamp>-<random>`. */
const ID = /^cgt-mock-([0-9a-z]{1,11})-(\d{1,2})-(480p|720p|1080p)-(ok|fail)-([0-9a-f]{10})$/;

const FAILURE = Object.freeze({
  code: 'OutputVideoSensitiveContentDetected',
  message: `The request failed because the output video may contain sensitive information (the mock's ${MOCK_VIDEO_FAIL_HOOK} hook).`,
});

export interface MockVideoOptions {
  /** The clock the tasks' states are read from (tests move it by hand). */
  readonly now?: () => number;
  /** How long a task is queued after it was made (it can be cancelled only then). */
  readonly queuedMs?: number;
  /** How long it then runs before it ends. */
  readonly runningMs?: number;
}

/** What a mock task's id says. */
interface MockTask {
  readonly createdAt: number;
  readonly seconds: number;
  readonly resolution: string;
  readonly fails: boolean;
}

type Body = Readonly<Record<string, unknown>>;

function invalid(message: string): VideoUpstreamError {
  return new VideoUpstreamError('refused', 400, 'InvalidParameter', message);
}

function notFound(id: string): VideoUpstreamError {
  return new VideoUpstreamError('refused', 404, 'ResourceNotFound', `The specified task ${id} is not found.`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The task an Ark request body asks for, checked no further than the mock needs, as Ark refuses the same. */
function readBody(body: Body, createdAt: number): MockTask {
  if (typeof body['model'] !== 'string' || body['model'] === '') throw invalid('The parameter `model` specified in the request is not valid.');
  const content = body['content'];
  if (!Array.isArray(content) || content.length === 0) throw invalid('The parameter `content` specified in the request is not valid: expected an array of at least one item.');
  let prompt = '';
  content.forEach((item: unknown, i) => {
    if (!isObject(item) || typeof item['type'] !== 'string') throw invalid(`The parameter \`content[${i}]\` specified in the request is not valid: expected an object with a \`type\`.`);
    if (item['type'] !== 'text') return;
    if (typeof item['text'] !== 'string') throw invalid(`The parameter \`content[${i}].text\` specified in the request is not valid: expected a text.`);
    prompt += item['text'];
  });
  return { createdAt, seconds: secondsOf(body['duration']), resolution: resolutionOf(body['resolution']), fails: prompt.includes(MOCK_VIDEO_FAIL_HOOK) };
}

/** Seconds asked; Ark's "auto" (-1) and no answer are the default, as the mock picks no length of its own. */
function secondsOf(value: unknown): number {
  if (value === undefined || value === null || value === -1) return DEFAULT_SECONDS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_SECONDS) {
    throw invalid(`The parameter \`duration\` specified in the request is not valid: expected a whole number of seconds from 1 to ${MAX_SECONDS}, or -1.`);
  }
  return value;
}

function resolutionOf(value: unknown): string {
  if (value === undefined || value === null) return DEFAULT_RESOLUTION;
  if (typeof value !== 'string' || !Object.hasOwn(FRAMES, value)) {
    throw invalid(`The parameter \`resolution\` specified in the request is not valid: expected one of ${Object.keys(FRAMES).join(', ')}.`);
  }
  return value;
}

function idOf(task: MockTask): string {
  // 40 random bits: tasks made in the same millisecond with the same clip, anywhere in the demo, must not meet.
  return `cgt-mock-${task.createdAt.toString(36)}-${task.seconds}-${task.resolution}-${task.fails ? 'fail' : 'ok'}-${randomBytes(5).toString('hex')}`;
}

/** The task an id names, or null when it is no id the mock made. */
function parseId(id: string): MockTask | null {
  const match = ID.exec(id);
  if (match === null) return null;
  const createdAt = parseInt(match[1] ?? '', 36);
  const seconds = Number(match[2]);
  if (!Number.isSafeInteger(createdAt) || seconds < 1 || seconds > MAX_SECONDS) return null;
  return { createdAt, seconds, resolution: match[3] ?? DEFAULT_RESOLUTION, fails: match[4] === 'fail' };
}

/** Ark's bill for a clip: width x height x fps x seconds / 1024 (720p for 5 s is 108,000); 720p's for no resolution of Ark's. */
export function mockVideoTokens(resolution: string, seconds: number): number {
  const frame = FRAMES[resolution] ?? FRAME_720P;
  return Math.round((frame.width * frame.height * FPS * seconds) / 1024);
}

/** The fixture as a body that arrives in two chunks, as a real download comes in more than one. */
async function* chunksOf(bytes: Buffer): AsyncGenerator<Uint8Array> {
  const half = Math.ceil(bytes.length / 2);
  yield bytes.subarray(0, half);
  yield bytes.subarray(half);
}

export function createMockVideoUpstream(options: MockVideoOptions = {}): VideoUpstream {
  const now = options.now ?? Date.now;
  const queuedMs = options.queuedMs ?? QUEUED_MS;
  const runningMs = options.runningMs ?? RUNNING_MS;

  /** The task's state by the clock; a task made "later" (another instance's clock ahead of ours) is still queued. */
  const statusOf = (task: MockTask): 'queued' | 'running' | 'ended' => {
    const age = now() - task.createdAt;
    if (age < queuedMs) return 'queued';
    return age < queuedMs + runningMs ? 'running' : 'ended';
  };

  const read = (id: string): MockTask => {
    const task = parseId(id);
    if (task === null) throw notFound(id);
    return task;
  };

  return {
    async create(_call: TaskCall, body: Body): Promise<string> {
      return idOf(readBody(body, now()));
    },

    async get(_call: TaskCall, id: string): Promise<UpstreamTask> {
      const task = read(id);
      const status = statusOf(task);
      if (status !== 'ended') return { status, videoUrl: null, totalTokens: null, duration: null, error: null };
      if (task.fails) return { status: 'failed', videoUrl: null, totalTokens: null, duration: null, error: FAILURE };
      return {
        status: 'succeeded',
        videoUrl: `${MOCK_VIDEO_URL_PREFIX}${id}.mp4`,
        totalTokens: mockVideoTokens(task.resolution, task.seconds),
        duration: task.seconds,
        error: null,
      };
    },

    // The mock cannot remember a cancellation: it only says yes while the clock still has the task queued, as Ark
    // does, and the gateway marks its own record cancelled.
    async cancel(_call: TaskCall, id: string): Promise<void> {
      const status = statusOf(read(id));
      if (status === 'queued') return;
      const state = status === 'running' ? 'running' : 'finished';
      throw new VideoUpstreamError('refused', 400, 'InvalidParameter', `The task ${id} is ${state}: only a queued task can be cancelled.`);
    },

    // Only a succeeded mock task's URL has a file behind it, as Ark hands out none before.
    async download(_call: TaskCall, url: string): Promise<VideoFile> {
      const name = url.startsWith(MOCK_VIDEO_URL_PREFIX) && url.endsWith('.mp4') ? url.slice(MOCK_VIDEO_URL_PREFIX.length, -'.mp4'.length) : '';
      const task = parseId(name);
      if (task === null || task.fails || statusOf(task) !== 'ended') {
        throw new VideoUpstreamError('refused', 404, 'ResourceNotFound', `No video at ${url.slice(0, 200)}.`);
      }
      const bytes = sampleVideo();
      return { contentType: 'video/mp4', contentLength: bytes.length, body: chunksOf(bytes), discard: async () => {} };
    },

    async close(): Promise<void> {},
  };
}
