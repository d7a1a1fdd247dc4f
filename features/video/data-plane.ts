// Seedance video tasks on Volcengine Ark's data plane (wire-formats.md 5.4): a task is created, read and cancelled
// with the channel's Bearer key over a keep-alive pool per Ark origin, and its file downloaded from wherever Ark put
// it. That URL is pre-signed object storage (TOS) on another origin: it is fetched through an agent of its own and
// without an Authorization header, so the Ark key never goes to a host that is not the channel's.

import { Agent, Pool, type Dispatcher } from 'undici';
import type { ResolvedChannel } from '../../core/config/resolved.js';
import { GatewayError } from '../../core/errors.js';
import {
  UPSTREAM_TASK_STATUSES,
  type TaskCall,
  type UpstreamTask,
  type UpstreamTaskStatus,
  type VideoFile,
  type VideoUpstream,
  VideoUpstreamError,
} from './upstream.js';
import { readBody } from '../../core/providers/read-body.js';
import { scrubSecrets } from '../../core/scrub-secrets.js';
import { failingAs, pulledBody, type Chunks, type PulledBody } from '../../core/sse/pulled-body.js';
import { isRedirect, redirectRefused } from '../../core/providers/upstream-redirect.js';
import { answerError, bounded, isObject, MAX_CODE_CHARS, MAX_MESSAGE_CHARS, protocolError, transportError } from './data-plane-errors.js';

const TASKS_PATH = '/contents/generations/tasks';
/** A task's JSON is a few hundred bytes: more than this is a broken or hostile upstream. */
const MAX_BODY_BYTES = 1024 * 1024;
/** What is read of a refused download's body so its connection can be reused; a longer one is cut off. */
const DISCARD_LIMIT_BYTES = 64 * 1024;
const CONNECT_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_MS = 30_000;
const DEFAULT_VIDEO_TYPE = 'video/mp4';
const ARK = 'Ark';
const FILE_HOST = "the video file's host";
/** Headers the data plane sets itself: a channel's configured ones of the same name are left out. */
const OWN_HEADERS: readonly string[] = ['authorization', 'accept', 'accept-encoding', 'content-type', 'content-length', 'host'];

export function createArkVideoUpstream(): VideoUpstream {
  // No connection cap: a capped pool silently queues calls beyond the cap.
  const pools = new Map<string, Pool>();
  // Base URLs come from the config, a handful per process: parsed once, not per call.
  const bases = new Map<string, { readonly origin: string; readonly prefix: string }>();
  // Files come from any origin (one pool each, inside the agent), none of them reached with the key.
  const files = new Agent({ keepAliveTimeout: KEEP_ALIVE_MS, connect: { timeout: CONNECT_TIMEOUT_MS } });
  let closed = false;
  let closing: Promise<void> | null = null;

  function baseOf(channel: ResolvedChannel): { readonly origin: string; readonly prefix: string } {
    if (channel.baseUrl === null) throw new GatewayError('GW_ERR_INTERNAL', `channel ${channel.name} has no base_url`);
    let base = bases.get(channel.baseUrl);
    if (base === undefined) {
      const url = new URL(channel.baseUrl);
      base = { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
      bases.set(channel.baseUrl, base);
    }
    return base;
  }

  function poolFor(origin: string): Pool {
    let pool = pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, { keepAliveTimeout: KEEP_ALIVE_MS, connect: { timeout: CONNECT_TIMEOUT_MS } });
      pools.set(origin, pool);
    }
    return pool;
  }

  /** One API call; the 2xx answer's text, else the answer's VideoUpstreamError. */
  async function send(call: TaskCall, method: Dispatcher.HttpMethod, path: string, body: Buffer | null): Promise<string> {
    if (closed) throw closedError();
    const { origin, prefix } = baseOf(call.channel);
    const { timeoutMs } = call.channel;
    let res: Dispatcher.ResponseData;
    try {
      const options = { method, path: prefix + path, headers: apiHeaders(call, body !== null), body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: call.signal };
      res = await poolFor(origin).request(options);
    } catch (err) {
      throw transportError(err, call.signal, ARK);
    }
    const text = await readText(res, call.signal);
    if (isRedirect(res.statusCode)) throw protocolError(redirectRefused(ARK, res.statusCode));
    if (res.statusCode < 200 || res.statusCode > 299) throw answerError(res.statusCode, text, call.key);
    return text;
  }

  return {
    async create(call: TaskCall, body: Readonly<Record<string, unknown>>): Promise<string> {
      const json = parseObject(await send(call, 'POST', TASKS_PATH, Buffer.from(JSON.stringify(body), 'utf8')));
      const id = json['id'];
      if (typeof id !== 'string' || id === '' || id.length > MAX_CODE_CHARS) throw protocolError('Ark answered a created task without a usable id');
      return id;
    },

    async get(call: TaskCall, id: string): Promise<UpstreamTask> {
      return readTask(parseObject(await send(call, 'GET', `${TASKS_PATH}/${encodeURIComponent(id)}`, null)), call.key);
    },

    async cancel(call: TaskCall, id: string): Promise<void> {
      // Ark answers `{}`; nothing in it is read.
      await send(call, 'DELETE', `${TASKS_PATH}/${encodeURIComponent(id)}`, null);
    },

    async download(call: TaskCall, url: string): Promise<VideoFile> {
      if (closed) throw closedError();
      const target = URL.canParse(url) ? new URL(url) : null;
      if (target === null || (target.protocol !== 'https:' && target.protocol !== 'http:')) throw protocolError('the video URL Ark gave is not an http(s) URL');
      let res: Dispatcher.ResponseData;
      try {
        res = await files.request({
          origin: target.origin,
          path: target.pathname + target.search,
          method: 'GET',
          // No Authorization: the URL carries its own signature. Identity: the bytes are relayed as they come, under
          // the type and length given here, so they must not arrive compressed.
          headers: { accept: '*/*', 'accept-encoding': 'identity' },
          headersTimeout: call.channel.timeoutMs,
          // Between two chunks of a file that may take minutes in all: the channel's allowed silence.
          bodyTimeout: call.channel.idleTimeoutMs,
          signal: call.signal,
        });
      } catch (err) {
        throw transportError(err, call.signal, FILE_HOST);
      }
      const { statusCode, headers } = res;
      const body = res.body;
      if (statusCode < 200 || statusCode > 299) {
        await body.dump({ limit: DISCARD_LIMIT_BYTES }).catch(() => undefined);
        throw protocolError(isRedirect(statusCode) ? redirectRefused(FILE_HOST, statusCode) : `${FILE_HOST} answered HTTP ${statusCode}`);
      }
      const type = headerValue(headers['content-type']);
      return {
        contentType: type === null || type === '' ? DEFAULT_VIDEO_TYPE : bounded(type, MAX_CODE_CHARS),
        contentLength: lengthOf(headerValue(headers['content-length'])),
        body: relay(body, call.signal),
        discard(): Promise<void> {
          // Destroyed, not drained: the rest of a video is not worth a connection.
          body.destroy();
          return Promise.resolve();
        },
      };
    },

    close(): Promise<void> {
      // Once: a second close() waits for the first (undici refuses to close a pool twice).
      closed = true;
      closing ??= Promise.all([...[...pools.values()].map((pool) => pool.close()), files.close()]).then(() => undefined);
      return closing;
    },
  };
}

/** The headers of one API call: the channel's own, then the key and what the body is. */
function apiHeaders(call: TaskCall, json: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  const own = call.channel.headers;
  for (const name in own) if (!OWN_HEADERS.includes(name.toLowerCase())) headers[name] = own[name] as string;
  headers['authorization'] = `Bearer ${call.key}`;
  headers['accept'] = 'application/json';
  // Identity, since the body is parsed here and undici's request() does not decompress.
  headers['accept-encoding'] = 'identity';
  if (json) headers['content-type'] = 'application/json';
  return headers;
}

async function readText(res: Dispatcher.ResponseData, signal: AbortSignal): Promise<string> {
  const tooLarge = (): Error => protocolError(`Ark's answer is over ${MAX_BODY_BYTES} bytes`);
  try {
    return (await readBody(res.body, MAX_BODY_BYTES, tooLarge)).toString('utf8');
  } catch (err) {
    // Leaving the loop has destroyed the body already, so the connection is not reused.
    throw transportError(err, signal, ARK);
  }
}

function parseObject(text: string): Readonly<Record<string, unknown>> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw protocolError('Ark answered with a body that is not JSON');
  }
  if (!isObject(json)) throw protocolError('Ark answered with JSON that is not an object');
  return json;
}

/**
 * One read of a task, checked: a status Ark does not have means the answer cannot be trusted at all. A failed task's
 * message is kept, shown to its caller and told to the operator's webhooks: `key` (the channel's) is scrubbed from it
 * first, as from a refusal's.
 */
function readTask(json: Readonly<Record<string, unknown>>, key: string): UpstreamTask {
  const status = json['status'];
  if (!isStatus(status)) throw protocolError(`Ark answered a task with an unknown status (${bounded(JSON.stringify(status) ?? 'none', 40)})`);
  const content = isObject(json['content']) ? json['content'] : null;
  const usage = isObject(json['usage']) ? json['usage'] : null;
  const url = content?.['video_url'];
  const tokens = usage?.['total_tokens'];
  const duration = json['duration'];
  const error = isObject(json['error']) ? json['error'] : null;
  return {
    status,
    videoUrl: typeof url === 'string' && url !== '' ? url : null,
    totalTokens: typeof tokens === 'number' && Number.isSafeInteger(tokens) && tokens >= 0 ? tokens : null,
    duration: typeof duration === 'number' && Number.isFinite(duration) && duration >= 0 ? duration : null,
    error:
      error === null
        ? null
        : { code: textOf(error['code'], 'UpstreamError', MAX_CODE_CHARS), message: textOf(typeof error['message'] === 'string' ? scrubSecrets(error['message'], [key]) : null, 'the task failed', MAX_MESSAGE_CHARS) },
  };
}

function isStatus(value: unknown): value is UpstreamTaskStatus {
  return (UPSTREAM_TASK_STATUSES as readonly unknown[]).includes(value);
}

function textOf(value: unknown, fallback: string, max: number): string {
  return typeof value === 'string' && value !== '' ? bounded(value, max) : fallback;
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** A Content-Length as a byte count, or null when absent or not a plain non-negative integer. */
function lengthOf(value: string | null): number | null {
  if (value === null || !/^\d{1,15}$/.test(value.trim())) return null;
  return Number(value.trim());
}

/** The file's bytes as they arrive; a failure on the way is the file host's `unavailable`. */
function relay(body: Chunks, signal: AbortSignal): PulledBody {
  return failingAs(pulledBody(body), (err) => transportError(err, signal, FILE_HOST));
}

/** A call after close() (a poll racing the shutdown): `unavailable`, so it is retried, not judged. */
function closedError(): VideoUpstreamError {
  return new VideoUpstreamError('unavailable', 503, 'UpstreamUnavailable', 'the Ark video upstream is closed');
}
