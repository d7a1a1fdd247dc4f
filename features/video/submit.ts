// Submitting a video task. Everything that can refuse it does so before anything is sent: the price, the model's
// channels, the links (URLs resolved to public addresses; `asset://` links, which pin the task to the channel holding
// them), checked before anything is written, and the money (the most it may cost, set aside as holds of the task's
// own). The row is written before the money, leased to the submission, so that whatever happens next (a refusal, a
// crash) leaves a row that releases it; then the upstream is asked, channel after channel while one is unavailable
// before the request reached it. A request that may have reached an upstream is never sent to another: Ark's create
// is not idempotent, and a second task would run unbilled.

import { randomBytes } from 'node:crypto';
import { GatewayError, modelOutOfService } from '../../core/errors.js';
import { isStoreUnreachable } from '../../core/store/store-unreachable.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import { scrubSecrets } from '../../core/scrub-secrets.js';
import type { Attempt } from '../../core/routing/router.js';
import { outOfRotation } from '../../core/routing/out-of-rotation.js';
import { claimAttempt, releaseAttempt } from '../../core/routing/probe-claim.js';
import type { VideoTaskRow, VideoTaskStore } from './video-task-store.js';
import { VIDEO_ERRORS } from './errors.js';
import type { ContentLinks, LinkOwner } from '../../core/feature/content-links.js';
import { checkTaskHosts } from './task-links.js';
import { keyFingerprint } from './key-fingerprint.js';
import { nextPollAt } from './refresh.js';
import { settleTask } from './settle.js';
import { budgetsOf, modelNotPriced } from '../../core/money/budgets.js';
import { holdOwner, reserveForTask, taskReserve } from './task-money.js';
import type { TaskRequest, TaskShape } from './task-request.js';
import { VideoUpstreamError } from './upstream.js';
import type { VideoDeps } from './video-deps.js';
import { VIDEO_TASKS } from './store-part.js';
import { sectionOf } from '../../core/config/section.js';
import { VIDEO_SETTINGS } from './config.js';

const MAX_PROMPT_KEPT = 4000;
/** Ark's bounds on `execution_expires_after`, in seconds. */
const ARK_MIN_EXECUTION_S = 3600;
const ARK_MAX_EXECUTION_S = 259_200;

/** A public id: the shape's prefix and 128 random bits (never the upstream's id). */
export function newTaskId(shape: TaskShape): string {
  return `${shape === 'openai' ? 'video' : 'task'}_${randomBytes(16).toString('base64url')}`;
}

function modelNotServed(model: string): GatewayError {
  return new GatewayError('GW_ERR_MODEL_NOT_FOUND', `The model '${model.slice(0, 256)}' does not exist or is not a video model here.`, { param: 'model' });
}

/** The caller's error for an upstream's refusal: its status class, code and words, the channel's keys scrubbed. */
function refusal(err: VideoUpstreamError, keys: readonly string[]): GatewayError {
  const message = scrubSecrets(err.message, keys);
  if (err.status === 404) return new GatewayError('GW_ERR_UPSTREAM_NOT_FOUND', message, { upstreamStatus: err.status, wireCode: err.code });
  return new GatewayError('GW_ERR_UPSTREAM_BAD_REQUEST', message, { upstreamStatus: err.status, wireCode: err.code });
}

/** Another channel may be tried: the upstream said it is unavailable, or the request never reached it. */
function mayFailOver(err: unknown): boolean {
  if (!(err instanceof VideoUpstreamError)) return false;
  if (err.kind === 'refused') return err.status === 401 || err.status === 403;
  // A timeout may have come after the upstream took the task.
  return err.code !== 'UpstreamTimeout';
}

/**
 * How long the upstream may run the task: Ark's `execution_expires_after`, at most the gateway's own deadline, so that
 * the upstream never finishes (and bills) a task the gateway has expired; a caller may ask for less.
 */
function executionWindow(asked: unknown, taskTimeoutMs: number): number {
  const ours = Math.min(ARK_MAX_EXECUTION_S, Math.max(ARK_MIN_EXECUTION_S, Math.floor(taskTimeoutMs / 1000)));
  if (typeof asked !== 'number' || !Number.isInteger(asked)) return ours;
  return Math.max(ARK_MIN_EXECUTION_S, Math.min(asked, ours));
}

/**
 * The channel whose library holds every linked asset, which the task runs on (Ark resolves a link only within the
 * project that holds it); null without links. Refused when they are in several libraries, or nothing keeps assets.
 */
async function pinnedChannel(ids: readonly string[], owner: LinkOwner, links: ContentLinks | undefined, signal: AbortSignal): Promise<string | null> {
  if (ids.length === 0) return null;
  if (links === undefined) throw new GatewayError('GW_ERR_REQUEST_INVALID_FIELD', 'The content links to asset:// items, but this gateway keeps no asset library.', { param: 'content' });
  const items = await links.resolve(ids, owner, signal);
  const first = items[0];
  const other = items.find((item) => item.channel !== first?.channel);
  if (other !== undefined) {
    throw new GatewayError(VIDEO_ERRORS.GW_ERR_VIDEO_ASSET_CHANNELS, `asset://${other.id} is in another library than the task's other assets: one task may link to one library's assets only.`, {
      param: 'content',
    });
  }
  return first?.channel ?? null;
}

/** Makes the task; its row as the upstream took it. `signal` is the caller's: once sent, the call is not cut. */
export async function submitTask(deps: VideoDeps, key: AuthedKey, shape: TaskShape, request: TaskRequest, signal: AbortSignal): Promise<VideoTaskRow> {
  const { pricing } = deps.config;
  const video = sectionOf(deps.config, VIDEO_SETTINGS);
  // The period a periodic max_spend counts the task in is the calendar clock's (a test's, moved by hand), as for every
  // other request (the quota plugin's); the task's own times and holds keep the process clock.
  const calendarNow = deps.clock();
  const budgets = budgetsOf(key, calendarNow);
  const price = pricing.priceOf(request.model);
  if (price === null && budgets.length > 0 && pricing.unpriced === 'refuse') throw modelNotPriced(request.model);
  // A channel out of rotation is left out, but for its probe (claimed when it is sent, as the model routes do).
  let attempts = deps.router.plan(request.model, 'video');
  const first = attempts[0];
  if (first === undefined) {
    throw outOfRotation(deps.router, request.model, 'video') ?? (deps.router.disabledByOperator(request.model, 'video') ? modelOutOfService(request.model) : modelNotServed(request.model));
  }
  // The links, before anything is written: every URL Ark would fetch resolves to public addresses only, and every
  // asset link is the caller's, ready, and in one library, whose channel the task is pinned to.
  await checkTaskHosts(request.hosts, deps.resolveHost);
  const pinned = await pinnedChannel(request.assetIds, { keyId: key.id, account: key.account ?? null }, deps.links, signal);
  if (pinned !== null) {
    attempts = attempts.filter((a) => a.channel.name === pinned);
    // The library's channel serves the model but the operator disabled it: out of service, not the caller's mistake.
    // The library's channel is out of rotation: the model routes' answer (503, retry-after), not the caller's mistake.
    const resting = attempts.length === 0 ? outOfRotation(deps.router, request.model, 'video', pinned) : null;
    if (resting !== null) throw resting;
    if (attempts.length === 0 && deps.router.overrides.snapshot.get(pinned)?.disabled === true) {
      throw new GatewayError('GW_ERR_MODEL_OUT_OF_SERVICE', "The linked assets' library is on a channel that is out of service right now; retry later.", { param: 'model' });
    }
    if (attempts.length === 0) {
      throw new GatewayError(VIDEO_ERRORS.GW_ERR_VIDEO_ASSET_CHANNELS, `The linked assets' library cannot run model '${request.model.slice(0, 256)}': use a model its channel serves.`, { param: 'model' });
    }
  }
  const lead = attempts[0] ?? first;
  const id = newTaskId(shape);
  const owner = `submit:${id}`;
  const now = Date.now();
  const expiresAt = now + video.taskTimeoutMs;
  const row: VideoTaskRow = {
    id,
    keyId: key.id,
    keyName: key.name,
    account: key.account ?? null,
    group: key.group,
    channel: lead.channel.name,
    upstreamId: null,
    model: request.model,
    upstreamModel: lead.upstreamModel,
    shape,
    status: 'submitting',
    progress: 0,
    prompt: request.prompt === null ? null : request.prompt.slice(0, MAX_PROMPT_KEPT),
    seconds: request.seconds,
    size: request.size,
    resultUrl: null,
    errorCode: null,
    errorMessage: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    expiresAt,
    reserved: 0n,
    holds: [],
    totalTokens: null,
    cost: null,
    settledAt: null,
    nextPollAt: now + video.pollIntervalMs,
    polls: 0,
    keyFingerprint: null,
    recordedAt: null,
    priceVersion: null,
  };
  // Leased for as long as every attempt may take: no poller reads a task whose upstream id is not known yet.
  const leaseUntil = now + attempts.reduce((sum, a) => sum + a.channel.timeoutMs, 0) + 60_000;
  await deps.store.part(VIDEO_TASKS).addTask(row, { owner, until: leaseUntil });
  try {
    const amount = price === null || budgets.length === 0 ? 0n : taskReserve(price, request.resolution, request.seconds, pricing.multiplierOf(key.group));
    if (amount > 0n) {
      // Held past the deadline by the poller's reach: the expiry settles (and drops them) first.
      const holds = await reserveForTask(deps.store.ledger, budgets, amount, id, { now, calendarNow }, expiresAt + video.maxPollIntervalMs + 60_000);
      await deps.store.part(VIDEO_TASKS).updateTask(id, { reserved: amount, holds, updatedAt: now });
    }
    // Gone before anything was sent: nothing runs, nothing is kept.
    if (signal.aborted) throw new GatewayError('GW_ERR_CLIENT_CLOSED', 'The client closed the request.');
  } catch (err) {
    // Refused before anything was sent: the task never was.
    await deps.store.ledger.releaseHolds(holdOwner(id));
    await deps.store.part(VIDEO_TASKS).discardTask(id);
    throw err;
  }
  try {
    return await send(deps, row, request, attempts, pinned);
  } finally {
    await deps.store.part(VIDEO_TASKS).releaseLease(owner, id).catch(() => undefined);
  }
}

/** `pinned`: the one channel the task's linked assets allow, when they do (its rotation's wait is the caller's answer). */
async function send(deps: VideoDeps, row: VideoTaskRow, request: TaskRequest, attempts: readonly Attempt[], pinned: string | null): Promise<VideoTaskRow> {
  // A store out of reach here must not hide the answer the caller is owed: the row, still leased, is settled by
  // the poller once its lease ends.
  const failed = (code: string, message: string) =>
    settleTask(deps, row, { status: 'failed', progress: 0, resultUrl: null, errorCode: code, errorMessage: message, totalTokens: null, seconds: null }).catch((err: unknown) => {
      deps.logger.warn({ err, task: row.id }, 'a video task that failed could not be settled yet; the poller settles it');
    });
  const body = Object.assign({}, request.body, { execution_expires_after: executionWindow(request.body['execution_expires_after'], sectionOf(deps.config, VIDEO_SETTINGS).taskTimeoutMs) });
  let last: unknown = null;
  const { rotation } = deps.router;
  for (const attempt of attempts) {
    const upstream = deps.videoUpstreams.get(attempt.channel.type);
    if (upstream === undefined) continue;
    // A channel out of rotation gets one submission, its probe: another request (here or elsewhere) took it otherwise.
    if (!(await claimAttempt(rotation, attempt))) continue;
    const key = deps.router.keys.pick(attempt.channel.name, attempt.channel.keys);
    const { name, health } = attempt.channel;
    let upstreamId: string;
    const deadline = AbortSignal.timeout(attempt.channel.timeoutMs);
    try {
      // Not cut when the caller leaves: a task the upstream may already run must be recorded (and settled).
      upstreamId = await upstream.create({ channel: attempt.channel, key, signal: deadline }, Object.assign({ model: attempt.upstreamModel }, body));
    } catch (err) {
      last = err;
      // The submission's own deadline may end the call before the upstream client says it timed out: the channel's timeout.
      const timedOut = deadline.aborted;
      if (!(err instanceof VideoUpstreamError) && !timedOut) {
        // Not the channel's (a bug, a store): its probe tells nothing, and goes to the next request.
        releaseAttempt(rotation, attempt);
        throw err;
      }
      const refused = err instanceof VideoUpstreamError && err.kind === 'refused' && !mayFailOver(err);
      // The caller's refusal (a 4xx of its own) says the channel serves; anything else is the channel's failure.
      rotation.record(name, health, refused ? 'neutral' : 'failed', attempt.probe === true);
      if (refused) {
        await failed(err.code, err.message.slice(0, 500));
        throw refusal(err, attempt.channel.keys);
      }
      if (!mayFailOver(err)) {
        // It may run upstream, unknown to the gateway (no id came back): said, and not charged.
        await failed('UpstreamTimeout', 'The upstream did not answer the submission in time.');
        throw new GatewayError('GW_ERR_UPSTREAM_TIMEOUT', 'The upstream did not answer in time; the task may not have been made. List your tasks before retrying.', { cause: err });
      }
      deps.router.health.markFailure(attempt.channel.name, attempt.channel.cooldownMs);
      deps.logger.warn({ err, channel: attempt.channel.name, task: row.id }, 'submitting a video task failed before it reached the upstream; trying the next channel');
      continue;
    }
    rotation.record(name, health, 'served', attempt.probe === true);
    const at = Date.now();
    const taken = { upstreamId, channel: attempt.channel.name, upstreamModel: attempt.upstreamModel, keyFingerprint: keyFingerprint(key), status: 'queued' as const, nextPollAt: nextPollAt(deps, 0, at), updatedAt: at };
    await saveTaken(deps, row.id, taken);
    return Object.assign({}, row, taken);
  }
  await failed('UpstreamUnavailable', 'No channel took the task.');
  // Nothing sent: the plan was a probe another request took meanwhile (the model routes' answer then).
  if (last === null) throw outOfRotation(deps.router, row.model, 'video', pinned ?? undefined) ?? new GatewayError('GW_ERR_UPSTREAM_UNAVAILABLE', 'No upstream could take the video task right now; retry shortly.', { retryAfter: 1 });
  throw new GatewayError('GW_ERR_UPSTREAM_UNAVAILABLE', 'No upstream could take the video task right now; retry shortly.', { cause: last, retryAfter: 1 });
}

/**
 * Records the upstream's id: the task runs from now on, so a store that fails here is asked again (three times) before
 * the caller is told; the row, still submitting, then expires when its lease does.
 */
async function saveTaken(deps: VideoDeps, id: string, taken: Parameters<VideoTaskStore['updateTask']>[1]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (await deps.store.part(VIDEO_TASKS).updateTask(id, taken)) return;
      throw new Error('the task was settled while it was being submitted');
    } catch (err) {
      if (attempt >= 3) {
        deps.logger.error({ err, task: id, upstreamId: taken.upstreamId }, 'a video task the upstream took could not be recorded; it runs unbilled');
        // The upstream runs the task: a retry would make a second one, so no retry hint, and the same advice as a
        // submission that timed out.
        throw new GatewayError(
          isStoreUnreachable(err) ? 'GW_ERR_STORE_UNAVAILABLE' : 'GW_ERR_INTERNAL',
          'The upstream may be running the task, but the gateway could not record it (it is not charged). List your tasks before retrying.',
          { cause: err },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}
