// meter: usage from the upstream's own usage object, one record per request, metrics; nothing slow on the way.

import { performance } from 'node:perf_hooks';
import { GatewayError } from '../../core/errors.js';
import { boundedUsage } from '../../core/ir/usage.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import { upstreamBody, type RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, Plugin, PluginFactory } from '../../core/pipeline/plugin.js';
import { ATTEMPTS, CHARGE, SUBJECT, USAGE, USAGE_FINAL } from '../../core/pipeline/request-slots.js';
import { scrubSecrets } from '../../core/scrub-secrets.js';
import type { UsageRecord } from '../../core/store/store.js';
import type { MeterOptions } from './options.gen.js';

interface MeterState {
  /** We turned include_usage on; the client did not ask for the usage-only chunk, so it is dropped. */
  dropUsageChunk: boolean;
}

/**
 * Refusals of a known key by the plugins before meter (the limits' 429, the money's 402 and 403, and their 503 while
 * their shared state is out of reach) are recorded too: the operator sees who was turned away and why, and every
 * answer a key got past its body has its record. Not recorded: a missing or bad key (no one to record), a body the
 * gateway could not read (no model), and usage_backlog (nothing can be recorded then).
 */
const RECORDED_REFUSALS: ReadonlySet<string> = new Set([
  'GW_ERR_RATE_LIMITED',
  'GW_ERR_TOKEN_RATE_LIMITED',
  'GW_ERR_LIMITS_UNAVAILABLE',
  'GW_ERR_INSUFFICIENT_BALANCE',
  'GW_ERR_MAX_SPEND_REACHED',
  'GW_ERR_MODEL_NOT_PRICED',
  'GW_ERR_BILLING_UNAVAILABLE',
]);

/** Longest error message a record keeps: the gateway's own words, a sentence or two; an upstream's is cut. */
const MAX_ERROR_MESSAGE = 1000;
/** Longest subject a record keeps (`<kind>:<id>`): ids are far shorter. */
const MAX_SUBJECT = 200;

function toRecord(ctx: RequestContext, key: AuthedKey, end: number): UsageRecord {
  const record = withMoney(tokenRecord(ctx, key, end), ctx, key.account);
  // The trace of a request that failed or failed over; nothing is added to the usual one that succeeded at once.
  const attempts = ctx.get(ATTEMPTS);
  if (attempts !== undefined) Object.assign(record, { attempts });
  // Shown to the account's users: whatever its producer did, nothing key-shaped is kept (scrubbed, then cut).
  if (ctx.error !== null) Object.assign(record, { errorMessage: scrubSecrets(ctx.error.message, []).slice(0, MAX_ERROR_MESSAGE) });
  const subject = ctx.get(SUBJECT);
  // Its id may be the client's (a call naming what it acts on): bounded as an id.
  if (subject !== undefined) Object.assign(record, { subject: subject.slice(0, MAX_SUBJECT) });
  // An image endpoint's record counts its images (none when it failed), whatever its upstream reported of tokens.
  if (ctx.request.images === undefined) return record;
  const usage = ctx.get(USAGE);
  return Object.assign(record, {
    images: usage?.images ?? 0,
    inputImageTokens: usage?.inputImageTokens ?? 0,
    outputImageTokens: usage?.outputImageTokens ?? 0,
  });
}

/**
 * The record with its key's account and, when a price applied, what the request cost (the quota plugin's charge).
 * The account is the key's, known since auth: every record of the key names it, charged or not (a refusal, a
 * failure, a route without quota), so that the account's users see all their requests; it is also what the store
 * charges a priced record to (quota reserves from the key's account, the same name). One assign per record.
 */
function withMoney(record: UsageRecord, ctx: RequestContext, account: string | undefined): UsageRecord {
  const charge = ctx.get(CHARGE);
  if (charge === undefined) return account === undefined ? record : Object.assign(record, { account });
  const { cost, priceVersion, draws } = charge;
  const usageEstimated = charge.estimated;
  return Object.assign(record, account === undefined ? { cost, priceVersion, usageEstimated, draws } : { cost, priceVersion, usageEstimated, draws, account });
}

function tokenRecord(ctx: RequestContext, key: AuthedKey, end: number): UsageRecord {
  const usage = ctx.get(USAGE);
  return {
    requestId: ctx.id,
    ts: ctx.receivedAt,
    keyId: key.id,
    keyName: key.name,
    group: key.group,
    route: ctx.route,
    // A flat-priced call (pricing.calls) names its operation where a model would be.
    model: ctx.request.operation ?? ctx.request.model,
    upstreamModel: ctx.upstreamModel,
    channel: ctx.channel,
    status: ctx.status,
    errorCode: ctx.error?.code ?? null,
    stream: ctx.stream,
    promptTokens: usage?.promptTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
    cachedTokens: usage?.cachedTokens ?? 0,
    cacheWriteTokens: usage?.cacheWriteTokens ?? 0,
    reasoningTokens: usage?.reasoningTokens ?? 0,
    latencyMs: Math.round(end - ctx.startedAt),
    ttftMs: ctx.firstByteAt === null ? null : Math.round(ctx.firstByteAt - ctx.startedAt),
    aborted: ctx.aborted,
  };
}

const USES = ['router', 'usage', 'metrics'] as const;
type Uses = (typeof USES)[number];
/** What this plugin uses of the gateway's services (its factory's `uses`). */
export type Services = Pick<GatewayServices, Uses>;

export const meterPlugin: PluginFactory<MeterOptions, Uses> = {
  name: 'meter',
  uses: USES,
  // The usage it reads from the answer, for quota's charge, the limits' correction and its own record; the charge,
  // when quota is in the route, which its record carries (quota's finish runs first: quota before meter).
  provides: [
    { slot: USAGE, phase: 'response' },
    { slot: USAGE, phase: 'frame' },
    { slot: USAGE_FINAL, phase: 'frame' },
  ],
  reads: [
    { slot: ATTEMPTS, phase: 'finish' },
    // Set by a route's handler (the terminal), not a plugin: read when there.
    { slot: SUBJECT, phase: 'finish' },
    { slot: CHARGE, phase: 'finish' },
    { slot: USAGE, phase: 'finish' },
  ],
  create(_options, services): Plugin {
    const metered = new WeakMap<RequestContext, MeterState>();
    const { metrics } = services;
    return {
      name: 'meter',
      request(ctx) {
        // Reading the body first: a bad one answers 400 here, before anything is metered.
        const { stream } = ctx.request;
        if (services.usage.saturated) {
          // Usage cannot be recorded right now; serving anyway would give the work away unbilled.
          throw new GatewayError('GW_ERR_USAGE_BACKLOG', 'The gateway cannot record usage right now; retry shortly.', {
            retryAfter: 1,
          });
        }
        const state: MeterState = { dropUsageChunk: false };
        metered.set(ctx, state);
        if (!stream) return;
        const asking = ctx.format.requestStreamUsage(ctx.request, upstreamBody(ctx));
        if (asking !== null) {
          ctx.bodyOverride = asking;
          state.dropUsageChunk = true;
        }
      },
      response(ctx, result) {
        // Bounded: an upstream's absurd count must not make a record the store refuses (core/ir/usage.ts).
        if (result.kind !== 'body' || result.status >= 300) return;
        const usage = boundedUsage(ctx.format.decodeUsage(result.body));
        if (usage !== null) ctx.set(USAGE, usage);
      },
      frame(ctx, frame) {
        const found = ctx.format.decodeFrameUsage(frame, ctx.get(USAGE) ?? null);
        if (found.usage === null) return frame;
        const usage = boundedUsage(found.usage);
        if (usage !== null) ctx.set(USAGE, usage);
        if (found.final === true) ctx.set(USAGE_FINAL, true);
        return found.usageOnly && metered.get(ctx)?.dropUsageChunk === true ? null : frame;
      },
      finish(ctx) {
        const end = performance.now();
        // Requests refused before metering began count in metrics; only the refusals above also write a record.
        const recorded = metered.has(ctx) || (ctx.error !== null && RECORDED_REFUSALS.has(ctx.error.code) && !services.usage.saturated);
        if (recorded && ctx.key !== null) services.usage.add(toRecord(ctx, ctx.key, end));

        // Label values come from sets the config bounds (router.modelLabel), so a caller cannot grow the series.
        const channel = ctx.channel ?? 'none';
        const model = ctx.channel === null ? 'unrouted' : services.router.modelLabel(ctx.request.model);
        metrics.requests.inc([ctx.route, model, channel, String(ctx.status)]);
        const labels = [ctx.route, model, channel];
        metrics.latency.observe(labels, (end - ctx.startedAt) / 1000);
        if (ctx.firstByteAt !== null) metrics.timeToFirstToken.observe(labels, (ctx.firstByteAt - ctx.startedAt) / 1000);
        const usage = ctx.get(USAGE);
        if (usage !== undefined) {
          metrics.tokens.inc([model, channel, 'prompt'], usage.promptTokens);
          metrics.tokens.inc([model, channel, 'completion'], usage.completionTokens);
          metrics.tokens.inc([model, channel, 'cached'], usage.cachedTokens);
          metrics.tokens.inc([model, channel, 'cache_write'], usage.cacheWriteTokens);
          metrics.tokens.inc([model, channel, 'reasoning'], usage.reasoningTokens);
          if (usage.images !== undefined) {
            metrics.images.inc([model, channel], usage.images);
            metrics.tokens.inc([model, channel, 'input_image'], usage.inputImageTokens ?? 0);
            metrics.tokens.inc([model, channel, 'output_image'], usage.outputImageTokens ?? 0);
          }
        }
      },
    };
  },
};

export default meterPlugin;
