// relay (terminal): picks channels for the model and calls them, failing over only before any byte reached the client.

import { GatewayError, modelOutOfService } from '../../core/errors.js';
import type { BodyBytes } from '../../core/formats/body-bytes.js';
import { removeRequestFields, setRequestField } from '../../core/formats/body-edit.js';
import { upstreamBody, type RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, Plugin, PluginFactory, RelayResult } from '../../core/pipeline/plugin.js';
import { ATTEMPTS, OUTPUT_RESERVE } from '../../core/pipeline/request-slots.js';
import { withTraceparent } from '../../core/pipeline/tracing.js';
import { UpstreamFailure, type UpstreamResponse } from '../../core/providers/provider.js';
import { readWhole } from '../../core/providers/read-body.js';
import { failingAs, pulledBody, type Chunks, type PulledBody } from '../../core/sse/pulled-body.js';
import { scrubError, scrubErrorBody, scrubErrorFrame } from '../../core/scrub-secrets.js';
import type { Attempt } from '../../core/routing/router.js';
import { outOfRotation as rotationRefusal } from '../../core/routing/out-of-rotation.js';
import { claimAttempt } from '../../core/routing/probe-claim.js';
import { frameBatches, PASS_THROUGH, type FrameTransform } from '../../core/sse/frame-batches.js';
import type { SseFrame } from '../../core/sse/frame.js';
import type { RelayOptions } from './options.gen.js';
import { AccountedAttempt, isFailure, traceAttempt } from './attempt.js';
import { reasonOf, toClientError, type Failure } from './last-failure.js';
import { stick } from './sticky.js';
import {
  RequestTranslator,
  dialectFor,
  translatedBody,
  translatedBodyAnswer,
  translatedFrames,
  translatedHeaders,
  type Translation,
} from './translation.js';

const USES = ['affinity', 'channelLoad', 'codecs', 'config', 'logger', 'metrics', 'router', 'providers'] as const;
type Uses = (typeof USES)[number];
/** What this plugin uses of the gateway's services (its factory's `uses`). */
export type Services = Pick<GatewayServices, Uses>;

export const relayPlugin: PluginFactory<RelayOptions, Uses> = {
  name: 'relay',
  uses: USES,
  // A translated request carries the output cap quota reserved, when the route reserves one.
  reads: [{ slot: OUTPUT_RESERVE, phase: 'relay' }],
  // Each attempt after the first failure, for the usage record (meter's finish reads it).
  provides: [{ slot: ATTEMPTS, phase: 'relay' }],
  create(_options, services): Plugin {
    // The channel each request is being served by, counted in flight (services.channelLoad) until its finish.
    const serving = new WeakMap<RequestContext, string>();
    return {
      name: 'relay',
      relay: (ctx) => relay(ctx, services, serving),
      finish(ctx) {
        const channel = serving.get(ctx);
        if (channel !== undefined) services.channelLoad.ended(channel);
      },
    };
  },
};

async function relay(ctx: RequestContext, services: Services, serving: WeakMap<RequestContext, string>): Promise<RelayResult> {
  const { router, providers } = services;
  const model = ctx.request.model;
  // An endpoint about no model ('') has nothing to route by: its route answers with a handler of its own.
  if (model === '') throw new GatewayError('GW_ERR_REQUEST_MISSING_FIELD', "Missing required parameter: 'model'.", { param: 'model' });
  // Channels of another format serve through translation, unless the route has no counterpart elsewhere.
  const found = ctx.format.translatable ? router.plan(model) : router.plan(model, ctx.format.name);
  if (found.length === 0) throw outOfRotation(ctx, services) ?? modelNotFound(ctx, services);
  // The route's own rule of its channels, when it has one (how many images a channel takes).
  const allowed = ctx.format.narrowAttempts?.(ctx.request, found, services.config) ?? found;
  const sticky = await stick(ctx, services, allowed);
  const plan = sticky?.plan ?? allowed;
  const translator = new RequestTranslator(ctx, services.codecs);
  let last: Failure | null = null;
  for (const attempt of plan) {
    const { channel } = attempt;
    const provider = providers.get(channel.type);
    if (provider === undefined) continue;
    // What the request names if this attempt sends nothing after all (its probe taken by another request).
    const sentTo = ctx.channel;
    const sentModel = ctx.upstreamModel;
    ctx.channel = channel.name;
    ctx.upstreamModel = attempt.upstreamModel;
    const dialect = dialectFor(ctx, attempt);
    let translation: Translation | null = null;
    let body: BodyBytes;
    try {
      translation = dialect === null ? null : translator.prepare(dialect);
      body = translation === null ? bodyFor(ctx, attempt) : translatedBody(translation, attempt);
    } catch (err) {
      // What cannot be said in this channel's dialect may still be served natively by the next channel.
      if (!(err instanceof GatewayError) || err.code !== 'GW_ERR_TRANSLATION_UNSUPPORTED') throw err;
      last = { kind: 'rejected', error: err };
      traceAttempt(ctx, { channel: channel.name, status: null, error: reasonOf(last), latencyMs: 0 });
      continue;
    }
    // Where the call goes: the route's path and the client's query, unless the dialect says (a translation's), or the
    // client's API names the model in its path (Gemini's: the channel's name of the model, the caller's key out).
    // Made before a probe is claimed: a throw here must not hold the claim.
    const call = translation === null ? (ctx.format.nativeCall?.(ctx.request, attempt.upstreamModel, ctx.query) ?? null) : translation.upstream.upstreamCall(attempt.upstreamModel, ctx.stream);
    // A channel out of rotation gets one request, its probe: claimed only now that its body is ready (a refused
    // translation above claimed nothing); another request (here or on another instance) took it otherwise.
    if (attempt.probe === true && !(await claimAttempt(router.rotation, attempt))) {
      ctx.channel = sentTo;
      ctx.upstreamModel = sentModel;
      continue;
    }
    const keyIndex = sticky?.boundKeyIndex(attempt) ?? router.keys.pickIndex(channel.name, channel.keys.length);
    // In flight from the call on; a failed attempt ends at once, the one that answers at the request's finish.
    const accounted = new AccountedAttempt(services, serving, ctx, attempt);
    const res = await accounted.call(() =>
      provider.send({
        channel,
        key: channel.keys[keyIndex] ?? '',
        method: ctx.method,
        path: call === null ? (ctx.path ?? ctx.route) : call.path,
        // The query belongs to the client's API (Anthropic's ?beta=true); another dialect has its own.
        query: call === null ? ctx.query : call.query,
        // A traced request's call carries its attempt's traceparent (the client's own goes no further).
        clientHeaders: withTraceparent(translation === null ? ctx.headers : translatedHeaders(ctx.headers), accounted.span),
        // The endpoint's content type (an edit's multipart form, boundary included); translation speaks JSON.
        contentType: translation === null ? ctx.request.contentType : undefined,
        body,
        stream: ctx.stream,
        abort: ctx.abort,
      }),
    );
    if (isFailure(res)) {
      last = res;
      continue;
    }
    sticky?.served(attempt, keyIndex);
    const result = translation === null ? toResult(ctx, services, attempt, res) : toTranslatedResult(ctx, services, attempt, res, translation, accounted);
    // A whole answer already here (the usual small one) is not awaited: nothing of it can break off any more.
    if (!(result instanceof Promise)) {
      accounted.waited();
      return result;
    }
    try {
      return await result;
    } catch (err) {
      // Only a whole answer that broke off while it was read (readWhole's UpstreamFailure): nothing of it reached
      // the client. Anything else (a decoding error, an upstream's refusal) is the answer as before.
      if (!(err instanceof UpstreamFailure) || ctx.abort.aborted) throw err;
      const failure = accounted.brokeOff(err);
      // Images are made (and billed upstream) before their answer is sent: asking the next channel would pay for
      // them twice. A chat answer is retried: the caller gets one.
      if (ctx.request.images !== undefined && res.status < 300) {
        throw new GatewayError('GW_ERR_UPSTREAM_ERROR', 'The upstream\'s answer broke off while it was read; it may have made the images. Retry if they are still wanted.', { cause: err });
      }
      last = failure;
      continue;
    } finally {
      // Read whole, broken off or refused: the upstream's part is over (a no-op when toTranslatedResult said so).
      accounted.waited();
    }
  }
  // Nothing sent: the plan was a probe that another request took meanwhile.
  if (last === null) throw outOfRotation(ctx, services) ?? toClientError(model, plan.length, { kind: 'status', status: 502, retryAfter: null });
  throw toClientError(model, plan.length, last);
}

/** Every channel of the model (in this route's format) is out of rotation: refused at once (core's one answer). */
function outOfRotation(ctx: RequestContext, services: Services): GatewayError | null {
  return ctx.format.translatable ? rotationRefusal(services.router, ctx.request.model) : rotationRefusal(services.router, ctx.request.model, ctx.format.name);
}

/** No channel serves the model in this route's format: say whether other routes would, so the caller can fix it. */
function modelNotFound(ctx: RequestContext, services: Services): GatewayError {
  const model = ctx.request.model;
  const elsewhere = services.router.plan(model, 'any');
  // Disabled everywhere: the model exists and is out of service (if other routes still serve it, the hint below).
  if (elsewhere.length === 0 && services.router.disabledByOperator(model, 'any')) return modelOutOfService(model);
  if (elsewhere.length > 0) {
    const formats = [...new Set(elsewhere.flatMap((a) => a.channel.formats))].join(', ');
    return new GatewayError(
      'GW_ERR_MODEL_NOT_FOUND',
      `The model "${model}" is not available on ${ctx.route}: its channels speak ${formats}. Call it through the matching API.`,
      { param: 'model' },
    );
  }
  return new GatewayError('GW_ERR_MODEL_NOT_FOUND', `The model "${model}" does not exist or you do not have access to it.`, {
    param: 'model',
  });
}

/**
 * The bytes to send: the API's own rules (Responses: store false), the model alias, the channel's drop_params,
 * each an edit of one top-level field (or form field) in place, so every other byte stays as the client sent it.
 */
function bodyFor(ctx: RequestContext, attempt: Attempt): BodyBytes {
  const { request } = ctx;
  // A GET or DELETE sends no body: nothing to edit.
  if (!ctx.carriesBody) return request.raw;
  let body = ctx.format.prepareUpstreamBody(request, upstreamBody(ctx));
  // Also when the client named no model (the image routes default one): the upstream makes what was billed. An API
  // whose path names the model (nativeCall) has none in its body.
  if (ctx.format.nativeCall === undefined && request.head['model'] !== attempt.upstreamModel) body = setRequestField(request, body, 'model', attempt.upstreamModel);
  const drop = attempt.channel.dropParams;
  return drop.length === 0 ? body : removeRequestFields(request, body, new Set(drop));
}

/**
 * (Exported for its test.) Not async: a whole answer that has all arrived is returned as it is, so neither this nor relay()'s return of it
 * costs a promise (an async function returning a promise waits two more microtask turns to adopt it).
 */
export function toResult(
  ctx: RequestContext,
  services: Services,
  attempt: Attempt,
  res: UpstreamResponse,
): RelayResult | Promise<RelayResult> {
  const contentType = res.headers['content-type'] ?? 'application/json';
  if (ctx.stream && res.status < 300 && contentType.includes('text/event-stream')) {
    return {
      kind: 'stream',
      status: res.status,
      headers: { 'content-type': 'text/event-stream; charset=utf-8' },
      frames: frameBatches(res.body, guard(ctx, services, attempt)),
    };
  }
  if (ctx.safe && (res.status < 300 || res.status === 304) && !contentType.includes('json') && !contentType.includes('text/event-stream')) {
    // A file an endpoint fetches (a task's result file): relayed as it arrives, never held whole. Only for GETs: a
    // POST's answer labelled text/plain is still read whole, so its usage is read and billed.
    return { kind: 'bytes', status: res.status, headers: fileHeaders(res, contentType), body: brokenAsUpstream(ctx, services, attempt, res.body) };
  }
  const body = readWhole(res.body, services.config.server.maxAnswerBytes);
  const keys = attempt.channel.keys;
  return body instanceof Promise ? body.then((whole) => bodyResult(res, contentType, whole, keys)) : bodyResult(res, contentType, body, keys);
}

/** What a client needs of a file's headers: its type, length and name. */
function fileHeaders(res: UpstreamResponse, contentType: string): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': contentType };
  for (const name of ['content-length', 'content-disposition', 'content-range', 'accept-ranges', 'etag', 'last-modified', 'cache-control']) {
    const value = res.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/** A file's chunks; an upstream that breaks off is counted and its channel cools down, as for a broken stream. */
function brokenAsUpstream(ctx: RequestContext, services: Services, attempt: Attempt, body: Chunks): PulledBody {
  return failingAs(pulledBody(body), (err) => {
    if (ctx.abort.aborted) return err;
    countBreak(services, attempt);
    return brokenStream(err);
  });
}

function bodyResult(res: UpstreamResponse, contentType: string, body: Buffer, channelKeys: readonly string[]): RelayResult {
  if (res.status >= 300 && !contentType.includes('json')) {
    // A non-JSON error page is not in the caller's format; answer in it instead.
    throw new GatewayError('GW_ERR_UPSTREAM_ERROR', `The upstream answered HTTP ${res.status}.`, { upstreamStatus: res.status });
  }
  // An error body passes through, minus anything shaped like a key (some vendors echo the one they got).
  const sent = res.status >= 400 ? scrubErrorBody(body, channelKeys) : body;
  return { kind: 'body', status: res.status, headers: { 'content-type': contentType }, body: sent };
}

/** An answer of another dialect, in the client's format: whole bodies, streams and errors alike. */
async function toTranslatedResult(
  ctx: RequestContext,
  services: Services,
  attempt: Attempt,
  res: UpstreamResponse,
  translation: Translation,
  accounted: AccountedAttempt,
): Promise<RelayResult> {
  const contentType = res.headers['content-type'] ?? '';
  if (ctx.stream && res.status < 300) {
    accounted.waited();
    if (!contentType.includes('text/event-stream')) {
      await res.discard();
      throw new GatewayError('GW_ERR_UPSTREAM_ERROR', 'The upstream answered a streaming request without a stream.', {
        upstreamStatus: res.status,
      });
    }
    const frames = translatedFrames(translation, res.body, {
      onUpstreamError(error) {
        services.metrics.upstreamErrors.inc([attempt.channel.name, 'stream']);
        // The upstream's message becomes the client's: scrubbed of anything shaped like a key first.
        ctx.error = scrubError(error, attempt.channel.keys);
        return ctx.error;
      },
      onBroken(err) {
        if (ctx.abort.aborted) throw err;
        countBreak(services, attempt);
        // The decoder says itself what was missing (a stream that ended before its terminal event).
        const error = err instanceof GatewayError ? err : brokenStream(err);
        ctx.error = error;
        return error;
      },
    });
    return { kind: 'stream', status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' }, frames };
  }
  const whole = await readWhole(res.body, services.config.server.maxAnswerBytes);
  // Translating it is the gateway's own time.
  accounted.waited();
  // The upstream's error message becomes the client's: scrubbed of anything shaped like a key first.
  const answer = translatedBodyAnswer(translation, res.status, res.status >= 300 ? scrubErrorBody(whole, attempt.channel.keys) : whole);
  const body = ctx.format.translatedAnswer === undefined ? answer : ctx.format.translatedAnswer(answer);
  return { kind: 'body', status: 200, headers: { 'content-type': 'application/json' }, body };
}

/**
 * Pass-through frames, except that a stream that breaks after it began cannot fail over: it becomes the format's
 * in-band error. An in-band error of the upstream's own passes through as it is, but the request failed: the
 * record, the log and the metrics say so.
 */
function guard(ctx: RequestContext, services: Services, attempt: Attempt): FrameTransform {
  const format = ctx.format;
  return Object.assign({}, PASS_THROUGH, {
    push(frames: readonly SseFrame[]): readonly SseFrame[] {
      let out = frames;
      for (let i = 0; i < frames.length; i++) {
        const frame = frames[i] as SseFrame;
        if (!format.isErrorFrame(frame)) continue;
        if (ctx.error === null) {
          services.metrics.upstreamErrors.inc([attempt.channel.name, 'stream']);
          ctx.error = new GatewayError('GW_ERR_UPSTREAM_ERROR', 'The upstream reported an error inside its stream.');
        }
        // Its message may echo the key, as an error body's may: the one frame not passed through byte for byte.
        const scrubbed = scrubErrorFrame(frame, attempt.channel.keys);
        if (scrubbed === frame) continue;
        if (out === frames) out = frames.slice();
        (out as SseFrame[])[i] = scrubbed;
      }
      return out;
    },
    fail(err: unknown): never {
      if (ctx.abort.aborted) throw err;
      countBreak(services, attempt);
      throw brokenStream(err);
    },
  });
}

/** An upstream stream that broke after it began: counted, and its channel cools down. */
function countBreak(services: Services, attempt: Attempt): void {
  services.metrics.upstreamErrors.inc([attempt.channel.name, 'stream']);
  services.router.health.markFailure(attempt.channel.name, attempt.channel.cooldownMs);
  services.router.rotation.record(attempt.channel.name, attempt.channel.health, 'failed', false);
  // Counted as a failed attempt; still in flight until the request's finish.
  services.channelLoad.brokeOff(attempt.channel.name);
}

function brokenStream(cause: unknown): GatewayError {
  return new GatewayError('GW_ERR_UPSTREAM_STREAM_BROKEN', 'The upstream stream broke off before it completed.', { cause });
}

export default relayPlugin;
