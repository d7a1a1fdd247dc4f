// rate-limit: requests per minute, tokens per minute and requests in flight, per key (its own values over its
// group's), per key on a model, and per account, answered with 429 in the caller's shape before anything is sent
// upstream. Every answer of a limited key carries the limits' headers. A request's slot is freed, and its tokens
// corrected to its usage, in finish, which runs once whatever way the request ends.
//
// With `route_rpm` the route has a limit of its own instead (count_tokens: Anthropic limits token counting apart from
// messages): each key's requests per minute on this route alone, never counted against its other limits.

import { GatewayError } from '../../core/errors.js';
import type { AuthedKey } from '../../core/keys/key-ring.js';
import { limitHeaders, openAIDuration } from '../../core/limits/limit-headers.js';
import { LimitPlan } from '../../core/limits/limit-plan.js';
import type { Admission, LimitCheck, LimitState, Ticket } from '../../core/limits/limiter.js';
import type { InFlight } from '../../core/metrics/in-flight-gauge.js';
import { requestTokens } from '../../core/money/estimate.js';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices, Plugin, PluginFactory } from '../../core/pipeline/plugin.js';
import { USAGE } from '../../core/pipeline/request-slots.js';
import type { RateLimitOptions } from './options.gen.js';

/** What an admitted request holds until its finish. */
interface Held {
  readonly ticket: Ticket;
  /** Its count in gateway_limited_requests_in_flight, when it holds a slot. */
  readonly inFlight: InFlight | null;
}

const PER_PERIOD: Readonly<Record<'rpm' | 'tpm' | 'tpd', string>> = { rpm: 'requests per min (RPM)', tpm: 'tokens per min (TPM)', tpd: 'tokens per day (TPD)' };
/** tokens_per_day's name in a message by its period (OpenAI says TPD of its own daily token limits). */
const PER_CALENDAR: Readonly<Record<'day' | 'week' | 'month', string>> = { day: 'tokens per day (TPD)', week: 'tokens per week', month: 'tokens per month' };

const USES = ['config', 'limiter', 'metrics'] as const;
type Uses = (typeof USES)[number];
/** What this plugin uses of the gateway's services (its factory's `uses`). */
export type Services = Pick<GatewayServices, Uses>;

export const rateLimitPlugin: PluginFactory<RateLimitOptions, Uses> = {
  name: 'rate-limit',
  uses: USES,
  // Its finish corrects a key's token count with the usage, when the route reads any (meter).
  reads: [{ slot: USAGE, phase: 'finish' }],
  create(options, services): Plugin {
    const plan = new LimitPlan(services.config);
    const routeRpm = options.route_rpm;
    // This route's check of each key (one plugin per route), made once per key object, not per request.
    const routeChecks = new WeakMap<AuthedKey, readonly LimitCheck[]>();
    const checksOnRoute = (key: AuthedKey, route: string, rpm: number): readonly LimitCheck[] => {
      let checks = routeChecks.get(key);
      if (checks === undefined) {
        checks = [{ subject: `key:${key.id}:route:${route}`, scope: 'route', label: `key "${key.name}" on ${route}`, rpm }];
        routeChecks.set(key, checks);
      }
      return checks;
    };
    const { limiter, metrics } = services;
    const tickets = new WeakMap<RequestContext, Held>();
    const admitted = (ctx: RequestContext, group: string, admission: Admission): void => {
      const headers = limitHeaders(admission.states, ctx.format.name.startsWith('anthropic'), Date.now());
      if (!admission.admitted) {
        // A request that can never fit (more than a whole limit) says so even where no rate header applies (a day's cap).
        if (admission.retryAfterMs === Number.POSITIVE_INFINITY) ctx.responseHeaders = Object.assign(headers ?? {}, { 'x-should-retry': 'false' });
        else if (headers !== null) ctx.responseHeaders = headers;
        metrics.rateLimited.inc([admission.refused.scope, admission.refused.kind]);
        throw refusal(admission);
      }
      const ticket = admission.ticket;
      tickets.set(ctx, { ticket, inFlight: ticket.slots.length > 0 ? metrics.limitedInFlight.enter(group) : null });
      if (headers !== null) ctx.responseHeaders = headers;
    };
    return {
      name: 'rate-limit',
      request(ctx) {
        const key = ctx.key;
        if (key === null) return undefined;
        if (routeRpm !== undefined) {
          const admission = limiter.admit(checksOnRoute(key, ctx.route, routeRpm), 0);
          if (admission instanceof Promise) return admission.then((a) => admitted(ctx, key.group, a));
          admitted(ctx, key.group, admission);
          return undefined;
        }
        // No limit in this load's file and none of the key's own (a run-time key's, from the store): nothing to do.
        if (!plan.declared && key.limits === undefined) return undefined;
        const checks = plan.checksFor(key, ctx.request.model);
        if (checks.length === 0) return undefined;
        const tokens = checks.some((c) => c.tpm !== undefined || c.tpd !== undefined) ? requestTokens(ctx.request, ctx.format.outputCaps) : 0;
        const admission = limiter.admit(checks, tokens);
        if (admission instanceof Promise) return admission.then((a) => admitted(ctx, key.group, a));
        admitted(ctx, key.group, admission);
        return undefined;
      },
      finish(ctx) {
        const held = tickets.get(ctx);
        if (held === undefined) return;
        tickets.delete(ctx);
        if (held.inFlight !== null) metrics.limitedInFlight.close(held.inFlight);
        // After the other finish hooks (they run synchronously, in config order, and quota's, after this one, puts
        // its estimate of an unreported usage on the context): the tokens are corrected to the usage recorded.
        queueMicrotask(() => {
          try {
            const done = limiter.finish(held.ticket, usedTokens(ctx));
            // A shared store that failed keeps the slot only until its expiry; never an unhandled rejection.
            if (done instanceof Promise) done.catch(() => undefined);
          } catch {
            // Out of the chain's own try: a throw here would be uncaught. The limiters do not throw; nothing is left to undo.
          }
        });
      },
    };
  },
};

/**
 * The tokens a request used: its usage (input plus output) when known; none when nothing served it (our error,
 * every channel failing); null, its estimate standing, when it was served without usage (usage of no input is
 * none: a translated answer says zeros when its upstream reported nothing).
 */
function usedTokens(ctx: RequestContext): number | null {
  const usage = ctx.get(USAGE);
  if (usage !== undefined && (usage.promptTokens > 0 || usage.completionTokens > 0)) return usage.promptTokens + usage.completionTokens;
  return ctx.status >= 400 ? 0 : null;
}

function refusal(admission: Extract<Admission, { admitted: false }>): GatewayError {
  const { refused, retryAfterMs, requested } = admission;
  const retryAfter = Number.isFinite(retryAfterMs) ? Math.max(1, Math.ceil(retryAfterMs / 1000)) : undefined;
  const options = retryAfter === undefined ? {} : { retryAfter };
  if (refused.kind === 'concurrency') {
    return new GatewayError(
      'GW_ERR_RATE_LIMITED',
      `Rate limit reached for ${refused.label} on concurrent requests: Limit ${refused.limit}, In flight ${refused.limit}, Requested 1. Please try again when one of them ends.`,
      options,
    );
  }
  const code = refused.kind === 'rpm' ? 'GW_ERR_RATE_LIMITED' : 'GW_ERR_TOKEN_RATE_LIMITED';
  const per = refused.period === undefined ? PER_PERIOD[refused.kind] : PER_CALENDAR[refused.period];
  if (retryAfter === undefined) {
    return new GatewayError(code, `Request too large for ${refused.label} on ${per}: Limit ${refused.limit}, Requested ${requested}. Send fewer tokens (a smaller input or max_tokens).`, options);
  }
  // A calendar cap says when its period ends, in the message and in x-gateway-budget-reset, as a periodic max_spend does.
  const resets = refused.resetsAt === undefined ? '' : ` (the ${refused.period ?? 'day'} resets at ${new Date(refused.resetsAt).toISOString()})`;
  const when = refused.resetsAt === undefined ? options : Object.assign(options, { resetsAt: refused.resetsAt });
  return new GatewayError(code, `Rate limit reached for ${refused.label} on ${per}: ${usedOf(refused)}, Requested ${requested}. Please try again in ${openAIDuration(retryAfterMs)}${resets}.`, when);
}

function usedOf(state: LimitState): string {
  return `Limit ${state.limit}, Used ${state.limit - state.remaining}`;
}

export default rateLimitPlugin;
