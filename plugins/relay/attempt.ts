// One upstream attempt's accounting, around the provider call: in flight on its channel from the call on; a failure
// (no answer, a status that blames the channel, an answer that broke off while it was read) ends it at once,
// counted in the metrics, cooled down in routing and logged, once; a success marks the channel healthy. The relay
// loop then only decides what to try next.

import { performance } from 'node:perf_hooks';
import type { RequestContext } from '../../core/pipeline/context.js';
import { ATTEMPTS } from '../../core/pipeline/request-slots.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import type { AttemptTrace } from '../../core/pipeline/tracing.js';
import { UpstreamFailure, type UpstreamResponse } from '../../core/providers/provider.js';
import { releaseAttempt } from '../../core/routing/probe-claim.js';
import type { Attempt } from '../../core/routing/router.js';
import type { UsageAttempt } from '../../core/store/store.js';
import { reasonOf, type Failure } from './last-failure.js';

type Services = Pick<GatewayServices, 'channelLoad' | 'logger' | 'metrics' | 'router'>;

/** Statuses that say "this channel, not this request": another channel may well succeed. */
function isChannelFailure(status: number): boolean {
  return status === 401 || status === 403 || status === 408 || status === 429 || status >= 500;
}

function retryAfterOf(res: UpstreamResponse): number | null {
  const value = Number(res.headers['retry-after']);
  return Number.isFinite(value) && value >= 0 ? Math.ceil(value) : null;
}

export class AccountedAttempt {
  readonly #sentAt = performance.now();
  #waited = false;
  /** This attempt's span when the request is traced (its traceparent goes upstream); null otherwise. */
  readonly span: AttemptTrace | null;

  /** `serving` maps a request to the channel counted in flight for it (until its finish, or a failure). */
  constructor(
    private readonly services: Services,
    private readonly serving: WeakMap<RequestContext, string>,
    private readonly ctx: RequestContext,
    private readonly attempt: Attempt,
  ) {
    services.channelLoad.started(attempt.channel.name);
    serving.set(ctx, attempt.channel.name);
    this.span = ctx.trace === null ? null : ctx.trace.attempt(attempt.channel, attempt.upstreamModel);
  }

  /**
   * The provider's answer, or the failure that ends this attempt (accounted; its body dropped): no answer at all,
   * or a status that blames the channel. Any other error is not the channel's and is thrown as it is.
   */
  async call(send: () => Promise<UpstreamResponse>): Promise<UpstreamResponse | Failure> {
    let res: UpstreamResponse;
    try {
      res = await send();
    } catch (err) {
      if (!(err instanceof UpstreamFailure)) {
        // Not the channel's (the client gone before the call, a bug): a probe tells nothing, and goes to the next request.
        releaseAttempt(this.services.router.rotation, this.attempt);
        throw err;
      }
      return this.#failed({ kind: 'transport', error: err }, `upstream attempt failed: ${err.message}`, { reason: err.reason });
    }
    this.span?.answered(res.status);
    if (!isChannelFailure(res.status)) {
      this.services.router.health.markSuccess(this.attempt.channel.name, this.#sentAt);
      // A 4xx of the caller's own says nothing of the channel (a probe's: it is reachable).
      this.services.router.rotation.record(this.attempt.channel.name, this.attempt.channel.health, res.status < 400 ? 'served' : 'neutral', this.attempt.probe === true);
      // Traced only after an earlier failure (the slot is there then): one attempt that answers costs nothing here.
      this.ctx.get(ATTEMPTS)?.push({ channel: this.attempt.channel.name, status: res.status, error: null, latencyMs: Math.round(performance.now() - this.#sentAt) });
      return res;
    }
    const failure = this.#failed({ kind: 'status', status: res.status, retryAfter: retryAfterOf(res) }, `upstream attempt failed: HTTP ${res.status}`, { upstreamStatus: res.status }, res.status);
    await res.discard();
    return failure;
  }

  /** An answer that broke off while it was read whole (nothing of it reached the client): this attempt failed. */
  brokeOff(err: UpstreamFailure): Failure {
    return this.#failed({ kind: 'transport', error: err }, `upstream attempt failed: ${err.message}`, { reason: err.reason });
  }

  /**
   * The upstream's part of this attempt is over (its answer is in hand: a whole one read, a stream's headers; or it
   * failed): its time counts as waiting on the upstream, not as the gateway's own (x-gateway-overhead-ms). Once.
   */
  waited(): void {
    if (this.#waited) return;
    this.#waited = true;
    this.ctx.upstreamWaitMs = (this.ctx.upstreamWaitMs ?? 0) + (performance.now() - this.#sentAt);
    this.span?.end();
  }

  #end(): void {
    const channel = this.serving.get(this.ctx);
    if (channel !== undefined) this.services.channelLoad.failed(channel);
    this.serving.delete(this.ctx);
  }

  #failed(failure: Failure, message: string, outcome: Record<string, unknown>, status: number | null = null): Failure {
    const { channel } = this.attempt;
    this.span?.failed(reasonOf(failure));
    this.waited();
    this.#end();
    traceAttempt(this.ctx, { channel: channel.name, status, error: reasonOf(failure), latencyMs: Math.round(performance.now() - this.#sentAt) });
    this.services.metrics.upstreamErrors.inc([channel.name, reasonOf(failure)]);
    this.services.router.health.markFailure(channel.name, channel.cooldownMs);
    // A call the caller gave up on is not the channel's failure: its probe (if it was one) goes to the next request.
    if (!this.ctx.abort.aborted) this.services.router.rotation.record(channel.name, channel.health, 'failed', this.attempt.probe === true);
    else releaseAttempt(this.services.router.rotation, this.attempt);
    // Which request, where, how long: never a key or a body.
    const line = { requestId: this.ctx.id, route: this.ctx.route, model: this.ctx.request.model, channel: channel.name, latencyMs: Math.round(performance.now() - this.#sentAt) };
    this.services.logger.warn(Object.assign(line, outcome), message);
    return failure;
  }
}

/** Adds a failed attempt to the request's trace (its usage record's `attempts`), making the trace on the first. */
export function traceAttempt(ctx: RequestContext, attempt: UsageAttempt): void {
  const attempts = ctx.get(ATTEMPTS);
  if (attempts === undefined) ctx.set(ATTEMPTS, [attempt]);
  else attempts.push(attempt);
}

/** Whether a call's result is the failure that ended the attempt. */
export function isFailure(result: UpstreamResponse | Failure): result is Failure {
  return 'kind' in result;
}
