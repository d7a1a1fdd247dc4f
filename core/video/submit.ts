// Submitting a video task: the price and the asset links checked, the most it may cost set aside, its row written
// (before the upstream call, so that a crash leaves a row to expire and its money is given back), then the upstream
// asked, channel after channel while they are unavailable. Links into a library pin the task to that library's channel.

import { randomBytes } from 'node:crypto';
import { GatewayError } from '../errors.js';
import type { AuthedKey } from '../keys/key-ring.js';
import { scrubSecrets } from '../providers/scrub-secrets.js';
import type { Attempt } from '../routing/router.js';
import type { VideoTaskRow } from '../store/video-task-store.js';
import { checkAssetLinks } from './asset-links.js';
import { nextPollAt } from './refresh.js';
import { settleTask } from './settle.js';
import { budgetsOf, reserveForTask, taskReserve } from './task-money.js';
import type { TaskRequest, TaskShape } from './task-request.js';
import { VideoUpstreamError } from './upstream.js';
import type { VideoDeps } from './video-deps.js';

const MAX_PROMPT_KEPT = 4000;

/** A public id: the shape's prefix and 128 random bits (never the upstream's id). */
export function newTaskId(shape: TaskShape): string {
  return `${shape === 'openai' ? 'video' : 'task'}_${randomBytes(16).toString('base64url')}`;
}

function notPriced(model: string): GatewayError {
  return new GatewayError('GW_ERR_MODEL_NOT_PRICED', `Model "${model}" has no price, so keys billed to an account cannot use it.`, { param: 'model' });
}

/** The channels to try: the model's video channels, or only the one holding the linked assets. */
function attemptsFor(deps: VideoDeps, request: TaskRequest, pinned: string | null): Attempt[] {
  const plan = deps.router.plan(request.model, 'video');
  if (plan.length === 0) throw new GatewayError('GW_ERR_MODEL_NOT_FOUND', `The model '${request.model.slice(0, 256)}' does not exist or is not a video model here.`, { param: 'model' });
  if (pinned === null) return plan;
  const there = plan.filter((a) => a.channel.name === pinned);
  if (there.length === 0) {
    throw new GatewayError('GW_ERR_VIDEO_ASSET_CHANNELS', `The linked assets' library cannot run model '${request.model.slice(0, 256)}': use a model its channel serves.`, { param: 'model' });
  }
  return there;
}

/** The caller's error for an upstream's refusal: its status class, code and words, the channel's keys scrubbed. */
function refusal(err: VideoUpstreamError, keys: readonly string[]): GatewayError {
  const message = scrubSecrets(err.message, keys);
  if (err.status === 404) return new GatewayError('GW_ERR_UPSTREAM_NOT_FOUND', message, { upstreamStatus: err.status, wireCode: err.code });
  return new GatewayError('GW_ERR_UPSTREAM_BAD_REQUEST', message, { upstreamStatus: err.status, wireCode: err.code });
}

/** Makes the task; its row as the upstream took it. `signal` is the caller's: once sent, the call is not cut. */
export async function submitTask(deps: VideoDeps, key: AuthedKey, shape: TaskShape, request: TaskRequest, signal: AbortSignal): Promise<VideoTaskRow> {
  const { pricing, video } = deps.config;
  const budgets = budgetsOf(key);
  const price = pricing.priceOf(request.model);
  if (price === null && budgets.length > 0 && pricing.unpriced === 'refuse') throw notPriced(request.model);
  const pinned = await checkAssetLinks(request.assetIds, { keyId: key.id, account: key.account ?? null }, { assets: deps.store.assets, libraries: deps.assets, signal });
  const attempts = attemptsFor(deps, request, pinned);
  const first = attempts[0] as Attempt;
  const id = newTaskId(shape);
  const now = Date.now();
  const expiresAt = now + video.taskTimeoutMs;
  const amount = price === null || budgets.length === 0 ? 0n : taskReserve(price, request.resolution, request.seconds, pricing.multiplierOf(key.group));
  // Held past the deadline by the poller's reach: the expiry settles (and drops them) first.
  const holds = amount === 0n ? [] : await reserveForTask(deps.store.ledger, budgets, amount, id, now, expiresAt + video.maxPollIntervalMs + 60_000);
  const row: VideoTaskRow = {
    id,
    keyId: key.id,
    keyName: key.name,
    account: key.account ?? null,
    group: key.group,
    channel: first.channel.name,
    upstreamId: null,
    model: request.model,
    upstreamModel: first.upstreamModel,
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
    reserved: amount,
    holds,
    totalTokens: null,
    cost: null,
    settledAt: null,
    nextPollAt: now + video.pollIntervalMs,
    polls: 0,
  };
  try {
    await deps.store.videoTasks.addTask(row);
  } catch (err) {
    await deps.store.ledger.releaseHolds(`task:${id}`).catch(() => undefined);
    throw err;
  }
  let last: unknown = null;
  for (const attempt of attempts) {
    if (signal.aborted && last === null) break;
    const upstream = deps.videoUpstreams.get(attempt.channel.type);
    if (upstream === undefined) continue;
    const key = deps.router.keys.pick(attempt.channel.name, attempt.channel.keys);
    try {
      // Not cut when the caller leaves: a task the upstream may already run must be recorded (and settled).
      const upstreamId = await upstream.create({ channel: attempt.channel, key, signal: AbortSignal.timeout(attempt.channel.timeoutMs) }, Object.assign({ model: attempt.upstreamModel }, request.body));
      const at = Date.now();
      await deps.store.videoTasks.updateTask(id, { upstreamId, channel: attempt.channel.name, upstreamModel: attempt.upstreamModel, status: 'queued', nextPollAt: nextPollAt(deps, 0, at), updatedAt: at });
      return Object.assign({}, row, { upstreamId, channel: attempt.channel.name, upstreamModel: attempt.upstreamModel, status: 'queued' as const, updatedAt: at });
    } catch (err) {
      last = err;
      if (err instanceof VideoUpstreamError && err.kind === 'refused' && err.status !== 401 && err.status !== 403) {
        await settleTask(deps, row, { status: 'failed', progress: 0, resultUrl: null, errorCode: err.code, errorMessage: err.message.slice(0, 500), totalTokens: null, seconds: null });
        throw refusal(err, attempt.channel.keys);
      }
      deps.router.health.markFailure(attempt.channel.name, attempt.channel.cooldownMs);
      deps.logger.warn({ err, channel: attempt.channel.name, task: id }, 'submitting a video task failed; trying the next channel');
    }
  }
  await settleTask(deps, row, { status: 'failed', progress: 0, resultUrl: null, errorCode: 'UpstreamUnavailable', errorMessage: 'No channel took the task.', totalTokens: null, seconds: null });
  throw new GatewayError('GW_ERR_UPSTREAM_UNAVAILABLE', 'No upstream could take the video task right now; retry shortly.', { cause: last, retryAfter: 1 });
}
