// A fake Volcengine Ark data plane on loopback, for Seedance video tasks (wire-formats.md 5.4): create, read and
// cancel/delete tasks under `/api/v3/contents/generations/tasks` with a Bearer key, Ark's error bodies, and each
// succeeded task's file served at a pre-signed URL on the fake's origin (as Ark's TOS URLs: no Authorization).
// Tasks stay queued until the test moves them (setStatus, finish, fail), or advance by time with `autoAdvance`.
// Every request is kept in `calls`, refused ones included.
//
// Sources: Ark's API docs as mirrored in Hajimi-Commune/VolcanoArkDocs ("查询视频生成任务 API", "取消或删除视频生成任务",
// "错误码"). Where they say nothing (the codes of an unknown task and of a refused DELETE, the file host's answer to
// an Authorization header), the fake's choice is marked "assumed".

import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { UpstreamTaskStatus } from '../../features/video/upstream.js';
import { LoopbackHttpServer, recordRequest } from './loopback-http-server.js';

const API_PREFIX = '/api/v3';
const TASKS_PATH = `${API_PREFIX}/contents/generations/tasks`;
const FILES_PREFIX = '/files/';
const DEFAULT_KEYS: readonly string[] = ['ark-fake-key-0000000000000001'];
const DEFAULT_VIDEO_BYTES = 64 * 1024;
const FRAMES_PER_SECOND = 24;
/** Assumed: the official table names `NotFound.{{Parameter}}` in general; relays of Seedance answer this. */
export const NOT_FOUND_CODE = 'ResourceNotFound';
/**
 * Assumed: Ark's docs say a running or cancelled task cannot be DELETEd but not what it answers; this is the code
 * and status (403 Forbidden) its error table gives for an operation refused in the target's current state.
 */
export const CANCEL_REFUSED_CODE = 'OperationDenied.InvalidState';
export const CANCEL_REFUSED_STATUS = 403;

export interface FakeArkAutoAdvance {
  /** Milliseconds after creation a queued task starts running. */
  readonly runningAfterMs: number;
  /** Milliseconds after creation it succeeds. */
  readonly succeededAfterMs: number;
  /** `usage.total_tokens` it succeeds with; 108900 by default. */
  readonly totalTokens?: number;
}

/** How the video file is sent: `chunkBytes` at a time, `delayMs` apart (to prove a download streams). */
export interface FakeArkPacing {
  readonly chunkBytes: number;
  readonly delayMs: number;
}

export interface FakeArkOptions {
  /** The API keys accepted as `Authorization: Bearer <key>`; one fixed key by default. */
  readonly keys?: readonly string[];
  /** The bytes every succeeded task's file has; `fakeArkVideo()` by default. */
  readonly video?: Buffer;
  /** Model names accepted; any name when absent (else 404 `InvalidEndpointOrModel.NotFound`, as Ark). */
  readonly models?: readonly string[];
  readonly autoAdvance?: FakeArkAutoAdvance;
  readonly pacing?: FakeArkPacing;
}

export interface FakeArkTask {
  readonly id: string;
  readonly model: string;
  /** The create body as it came. */
  readonly request: Readonly<Record<string, unknown>>;
  status: UpstreamTaskStatus;
  error: { code: string; message: string } | null;
  totalTokens: number | null;
  /** Seconds, or null when the request asked for `frames` (Ark returns only one of the two). */
  duration: number | null;
  frames: number | null;
  resolution: string;
  ratio: string;
  seed: number;
  /** Unix seconds. */
  readonly createdAt: number;
  updatedAt: number;
  /** The file's pre-signed URL once succeeded. */
  videoUrl: string | null;
  /** Moved by the test: `autoAdvance` leaves it alone from then on. */
  moved: boolean;
  readonly createdMs: number;
}

/** One request as it arrived. `path` has its query; `body` is the parsed JSON ({} when none). */
export interface FakeArkCall {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly authorization: string | null;
}

/** What `setStatus` may set beside the status. */
export interface FakeArkTaskExtra {
  readonly error?: { code: string; message: string } | null;
  readonly totalTokens?: number | null;
  readonly duration?: number | null;
}

export type FakeArkRoute = 'create' | 'get' | 'cancel';

export interface FakeArk {
  /** The base URL, `/api/v3` included (a channel's `base_url`). */
  readonly url: string;
  /** The origin alone (files are served there). */
  readonly origin: string;
  readonly keys: readonly string[];
  readonly tasks: ReadonlyMap<string, FakeArkTask>;
  readonly calls: FakeArkCall[];
  readonly video: Buffer;
  setStatus(id: string, status: UpstreamTaskStatus, extra?: FakeArkTaskExtra): void;
  /** Succeeds the task: usage, duration and the file's URL set. */
  finish(id: string, result?: { totalTokens?: number; duration?: number }): void;
  fail(id: string, code: string, message: string): void;
  /**
   * The next authorised call of `route` (create by default) answers `status` with `body`: an object is sent as
   * JSON, a string as it is (text/plain).
   */
  failNext(status: number, body: Readonly<Record<string, unknown>> | string, route?: FakeArkRoute): void;
  /** The next authorised call of `route` (create by default) is never answered (its connection stays open). */
  stallNext(route?: FakeArkRoute): void;
  /** Files sent in chunks from now on (null: at once). */
  pace(pacing: FakeArkPacing | null): void;
  /** Connections open right now (a client's pools closed close them). */
  connections(): number;
  close(): Promise<void>;
}

export async function startFakeArk(options: FakeArkOptions = {}): Promise<FakeArk> {
  return new FakeArkServer(options).start();
}

/**
 * A small MP4-shaped file: an `ftyp` box, then an `mdat` box of `bytes` deterministic pseudo-random bytes
 * (a xorshift32 stream from `seed`), so a test can tell these bytes from the gateway's mock fixture.
 */
export function fakeArkVideo(bytes = DEFAULT_VIDEO_BYTES, seed = 0x5eed_a7c0): Buffer {
  const ftyp = Buffer.alloc(32);
  ftyp.writeUInt32BE(32, 0);
  ftyp.write('ftypisom', 4, 'latin1');
  ftyp.writeUInt32BE(0x200, 12);
  ftyp.write('isomiso2avc1mp41', 16, 'latin1');
  const mdat = Buffer.alloc(8 + bytes);
  mdat.writeUInt32BE(8 + bytes, 0);
  mdat.write('mdat', 4, 'latin1');
  let x = seed >>> 0 || 1;
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    mdat[8 + i] = x & 0xff;
  }
  return Buffer.concat([ftyp, mdat]);
}

class FakeArkServer extends LoopbackHttpServer implements FakeArk {
  readonly calls: FakeArkCall[] = [];
  readonly keys: readonly string[];
  readonly video: Buffer;
  private readonly all = new Map<string, FakeArkTask>();
  private readonly failures = new Map<FakeArkRoute, { status: number; body: Readonly<Record<string, unknown>> | string }[]>();
  private readonly stalls = new Map<FakeArkRoute, number>();
  private readonly sockets = new Set<Socket>();
  /** A secret of this fake's, so a file URL cannot be made up by a test that did not get it from a task. */
  private readonly signingKey = randomBytes(16).toString('hex');
  private pacing: FakeArkPacing | null;

  constructor(private readonly options: FakeArkOptions) {
    super();
    this.keys = options.keys ?? DEFAULT_KEYS;
    this.video = options.video ?? fakeArkVideo();
    this.pacing = options.pacing ?? null;
  }

  get origin(): string {
    return super.url;
  }

  override get url(): string {
    return `${super.url}${API_PREFIX}`;
  }

  get tasks(): ReadonlyMap<string, FakeArkTask> {
    for (const task of this.all.values()) this.advance(task);
    return this.all;
  }

  setStatus(id: string, status: UpstreamTaskStatus, extra: FakeArkTaskExtra = {}): void {
    const task = this.task(id);
    task.status = status;
    task.moved = true;
    if (extra.error !== undefined) task.error = extra.error;
    if (extra.totalTokens !== undefined) task.totalTokens = extra.totalTokens;
    if (extra.duration !== undefined) task.duration = extra.duration;
    task.videoUrl = status === 'succeeded' ? this.signedUrl(task.id) : null;
    task.updatedAt = nowSeconds();
  }

  finish(id: string, result: { totalTokens?: number; duration?: number } = {}): void {
    const task = this.task(id);
    this.setStatus(id, 'succeeded', { error: null, totalTokens: result.totalTokens ?? 108_900, duration: result.duration ?? task.duration });
  }

  fail(id: string, code: string, message: string): void {
    this.setStatus(id, 'failed', { error: { code, message }, totalTokens: null });
  }

  failNext(status: number, body: Readonly<Record<string, unknown>> | string, route: FakeArkRoute = 'create'): void {
    const queue = this.failures.get(route) ?? [];
    queue.push({ status, body });
    this.failures.set(route, queue);
  }

  stallNext(route: FakeArkRoute = 'create'): void {
    this.stalls.set(route, (this.stalls.get(route) ?? 0) + 1);
  }

  pace(pacing: FakeArkPacing | null): void {
    this.pacing = pacing;
  }

  connections(): number {
    return this.sockets.size;
  }

  protected async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.track(req.socket);
    const recorded = await recordRequest(req);
    const authorization = typeof req.headers.authorization === 'string' ? req.headers.authorization : null;
    this.calls.push({ method: recorded.method, path: recorded.path, body: recorded.body, authorization });
    const url = new URL(recorded.path, 'http://fake.invalid');
    if (url.pathname.startsWith(FILES_PREFIX)) return this.serveFile(url, authorization, res);

    const requestId = arkRequestId();
    res.setHeader('x-request-id', requestId);
    const fail = (status: number, type: string, code: string, message: string, param?: string): void => {
      const error = param === undefined ? { code, message: `${message} Request id: ${requestId}`, type } : { code, message: `${message} Request id: ${requestId}`, param, type };
      json(res, status, { error });
    };
    if (authorization === null || !authorization.startsWith('Bearer ') || !this.keys.includes(authorization.slice(7))) {
      return fail(401, 'Unauthorized', 'AuthenticationError', 'The API key or AK/SK in the request is missing or invalid.');
    }
    const route = routeOf(recorded.method, url.pathname);
    if (route === null) return fail(404, 'NotFound', 'NotFound', `The requested path ${url.pathname} is not found.`);
    const stalled = this.stalls.get(route) ?? 0;
    if (stalled > 0) {
      this.stalls.set(route, stalled - 1);
      return;
    }
    const failure = this.failures.get(route)?.shift();
    if (failure !== undefined) {
      if (typeof failure.body !== 'string') return json(res, failure.status, failure.body);
      res.writeHead(failure.status, { 'content-type': 'text/plain; charset=utf-8' });
      return void res.end(failure.body);
    }
    if (route === 'create') {
      const problem = createProblem(recorded.raw, recorded.body);
      if (problem !== null) return fail(400, 'BadRequest', 'InvalidParameter', `The parameter \`${problem.param}\` specified in the request is not valid: ${problem.why}.`, problem.param);
      const model = recorded.body['model'] as string;
      if (this.options.models !== undefined && !this.options.models.includes(model)) {
        return fail(404, 'NotFound', 'InvalidEndpointOrModel.NotFound', `The model or endpoint ${model} does not exist or you do not have access to it.`);
      }
      return json(res, 200, { id: this.create(model, recorded.body).id });
    }
    const id = decodeURIComponent(url.pathname.slice(TASKS_PATH.length + 1));
    const task = this.all.get(id);
    if (task === undefined) return fail(404, 'NotFound', NOT_FOUND_CODE, `The specified task ${id} is not found.`);
    this.advance(task);
    if (route === 'get') return json(res, 200, view(task));
    // DELETE, as Ark documents it: a queued task is cancelled; a succeeded, failed or expired one is deleted (no
    // longer readable); a running or cancelled one is refused.
    if (task.status === 'queued') this.setStatus(id, 'cancelled');
    else if (task.status === 'running' || task.status === 'cancelled') {
      return fail(CANCEL_REFUSED_STATUS, 'Forbidden', CANCEL_REFUSED_CODE, `Operation is denied because the specified task is in invalid state: ${task.status}.`);
    } else this.all.delete(id);
    json(res, 200, {});
  }

  private create(model: string, body: Record<string, unknown>): FakeArkTask {
    const frames = typeof body['frames'] === 'number' ? body['frames'] : null;
    const seed = Number.isSafeInteger(body['seed']) && (body['seed'] as number) >= 0 ? (body['seed'] as number) : randomBytes(4).readUInt32BE(0) % 2 ** 31;
    const task: FakeArkTask = {
      id: taskId(),
      model,
      request: body,
      status: 'queued',
      error: null,
      totalTokens: null,
      duration: frames !== null ? null : typeof body['duration'] === 'number' ? body['duration'] : 5,
      frames,
      resolution: typeof body['resolution'] === 'string' ? body['resolution'] : '720p',
      ratio: typeof body['ratio'] === 'string' ? body['ratio'] : '16:9',
      seed,
      createdAt: nowSeconds(),
      updatedAt: nowSeconds(),
      videoUrl: null,
      moved: false,
      createdMs: Date.now(),
    };
    this.all.set(task.id, task);
    return task;
  }

  /** Moves a task the test has not moved along `autoAdvance`'s timeline. */
  private advance(task: FakeArkTask): void {
    const auto = this.options.autoAdvance;
    if (auto === undefined || task.moved || (task.status !== 'queued' && task.status !== 'running')) return;
    const age = Date.now() - task.createdMs;
    if (age >= auto.succeededAfterMs) {
      this.finish(task.id, auto.totalTokens === undefined ? {} : { totalTokens: auto.totalTokens });
      task.moved = false;
    } else if (age >= auto.runningAfterMs && task.status === 'queued') {
      task.status = 'running';
      task.updatedAt = nowSeconds();
    }
  }

  private task(id: string): FakeArkTask {
    const task = this.all.get(id);
    if (task === undefined) throw new Error(`the fake Ark has no task ${id}`);
    return task;
  }

  /** Like a TOS pre-signed URL: the object's path, then the signature's query. */
  private signedUrl(id: string): string {
    const date = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
    const query = `X-Tos-Algorithm=TOS4-HMAC-SHA256&X-Tos-Credential=AKLTfake%2F${date.slice(0, 8)}%2Fcn-beijing%2Ftos%2Frequest&X-Tos-Date=${date}&X-Tos-Expires=86400&X-Tos-SignedHeaders=host`;
    return `${this.origin}${FILES_PREFIX}${encodeURIComponent(id)}.mp4?${query}&X-Tos-Signature=${this.signature(id, query)}`;
  }

  private signature(id: string, query: string): string {
    return createHash('sha256').update(`${this.signingKey}\n${id}\n${query}`).digest('hex');
  }

  private async serveFile(url: URL, authorization: string | null, res: ServerResponse): Promise<void> {
    // Assumed, as S3 does: a pre-signed URL with an Authorization header too is two auth mechanisms, refused.
    if (authorization !== null) return text(res, 400, 'InvalidArgument: only one auth mechanism allowed');
    const id = decodeURIComponent(url.pathname.slice(FILES_PREFIX.length).replace(/\.mp4$/, ''));
    const signature = url.searchParams.get('X-Tos-Signature') ?? '';
    const query = url.search.slice(1).replace(/&X-Tos-Signature=[^&]*$/, '');
    if (signature !== this.signature(id, query)) return text(res, 403, 'SignatureDoesNotMatch');
    const task = this.all.get(id);
    if (task === undefined || task.status !== 'succeeded') return text(res, 404, 'NoSuchKey');
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(this.video.length) });
    const pacing = this.pacing;
    if (pacing === null) return void res.end(this.video);
    res.flushHeaders();
    for (let at = 0; at < this.video.length && !res.destroyed; at += pacing.chunkBytes) {
      res.write(this.video.subarray(at, at + pacing.chunkBytes));
      await new Promise((r) => setTimeout(r, pacing.delayMs));
    }
    res.end();
  }

  private track(socket: Socket): void {
    if (this.sockets.has(socket)) return;
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }
}

function routeOf(method: string, path: string): FakeArkRoute | null {
  if (path === TASKS_PATH) return method === 'POST' ? 'create' : null;
  if (!path.startsWith(`${TASKS_PATH}/`) || path.length === TASKS_PATH.length + 1 || path.slice(TASKS_PATH.length + 1).includes('/')) return null;
  return method === 'GET' ? 'get' : method === 'DELETE' ? 'cancel' : null;
}

/** What Ark would refuse in a create body, minimally: a JSON object with a model and at least one content item. */
function createProblem(raw: Buffer, body: Record<string, unknown>): { param: string; why: string } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return { param: 'body', why: 'the request body is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { param: 'body', why: 'the request body is not a JSON object' };
  if (typeof body['model'] !== 'string' || body['model'] === '') return { param: 'model', why: 'a model name is required' };
  const content = body['content'];
  if (!Array.isArray(content) || content.length === 0) return { param: 'content', why: 'at least one content item is required' };
  const bad = content.findIndex((item: unknown) => typeof item !== 'object' || item === null || typeof (item as { type?: unknown }).type !== 'string');
  if (bad >= 0) return { param: `content[${bad}]`, why: 'each content item needs a type' };
  return null;
}

/** The task as `GET .../tasks/{id}` answers it (wire-formats.md 5.4). */
function view(task: FakeArkTask): Record<string, unknown> {
  const out: Record<string, unknown> = { id: task.id, model: task.model, status: task.status, error: task.error };
  if (task.status === 'succeeded') out['content'] = { video_url: task.videoUrl };
  out['seed'] = task.seed;
  out['resolution'] = task.resolution;
  out['ratio'] = task.ratio;
  if (task.frames !== null) out['frames'] = task.frames;
  else out['duration'] = task.duration;
  out['framespersecond'] = FRAMES_PER_SECOND;
  if (task.status === 'succeeded' && task.totalTokens !== null) out['usage'] = { completion_tokens: task.totalTokens, total_tokens: task.totalTokens };
  out['created_at'] = task.createdAt;
  out['updated_at'] = task.updatedAt;
  return out;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(body);
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** `cgt-YYYYMMDDhhmmss-xxxxx`, as Ark's (UTC time, five lower-case letters and digits). */
function taskId(): string {
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const suffix = [...randomBytes(5)].map((b) => alphabet[b % alphabet.length]).join('');
  return `cgt-${stamp}-${suffix}`;
}

/** Like the real ones: the time to the second, then hex. */
function arkRequestId(): string {
  return new Date().toISOString().replace(/\D/g, '').slice(0, 14) + randomBytes(10).toString('hex');
}
