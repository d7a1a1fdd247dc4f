// Affinity in the relay: a conversation's bound channel goes first in the plan, its bound upstream key is
// used, and where the request was served becomes (or renews) the binding.

import type { RequestContext } from '../../core/pipeline/context.js';
import type { GatewayServices } from '../../core/pipeline/plugin.js';
import { affinityKey, type AffinityBinding } from '../../core/routing/affinity.js';
import type { Attempt } from '../../core/routing/router.js';

/** What binding a conversation reads and writes. */
type Services = Pick<GatewayServices, 'config' | 'affinity' | 'router' | 'metrics' | 'logger'>;

export interface Stickiness {
  /** The plan with the bound channel first, when it is in the plan and not cooling down. */
  readonly plan: readonly Attempt[];
  /** The bound key index for this channel, or null to use rotation. */
  boundKeyIndex(attempt: Attempt): number | null;
  /** Records where the request was served: the outcome metric and the new or renewed binding. */
  served(attempt: Attempt, keyIndex: number): void;
}

/** Null when the request names no conversation or affinity is off: the plan is used as it is. */
export async function stick(ctx: RequestContext, services: Services, plan: readonly Attempt[]): Promise<Stickiness | null> {
  const conversation = ctx.request.conversation;
  const { ttlMs } = services.config.affinity;
  if (conversation === null || ttlMs === 0) return null;
  // By format, not route: /v1/responses/compact belongs to the conversation of /v1/responses (its compaction
  // item and encrypted reasoning can only be read by the upstream account that wrote them).
  const key = affinityKey(ctx.format.name, ctx.key?.id ?? '', ctx.request.model, conversation);
  const bound = await services.affinity.get(key);
  const at = bound === null ? -1 : plan.findIndex((a) => a.channel.name === bound.channel);
  const boundAttempt = plan[at];
  // The binding wins within the best tier only: a conversation that failed over to a lower-priority backup
  // returns to the higher tier once it is healthy again, as the operator's priorities say.
  const usable =
    boundAttempt !== undefined &&
    !services.router.health.isCooling(boundAttempt.channel.name) &&
    boundAttempt.channel.priority >= (plan[0]?.channel.priority ?? 0);
  const ordered = usable && at > 0 ? [boundAttempt, ...plan.slice(0, at), ...plan.slice(at + 1)] : plan;
  return {
    plan: ordered,
    boundKeyIndex(attempt) {
      if (bound === null || attempt.channel.name !== bound.channel || bound.keyIndex >= attempt.channel.keys.length) return null;
      return bound.keyIndex;
    },
    served(attempt, keyIndex) {
      const binding: AffinityBinding = { channel: attempt.channel.name, keyIndex };
      const outcome = bound === null ? 'miss' : bound.channel === binding.channel && bound.keyIndex === keyIndex ? 'hit' : 'break';
      services.metrics.affinity.inc([ctx.route, outcome]);
      services.affinity.set(key, binding, ttlMs).catch((err: unknown) => {
        services.logger.warn({ err }, 'saving a conversation binding failed; the conversation may move');
      });
    },
  };
}
