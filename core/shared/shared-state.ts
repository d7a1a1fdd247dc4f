// What several instances share through Redis (redis.url): the connection and its heartbeat, rate limits, conversation
// bindings and channel cool-downs, each with its behaviour while Redis is out (limits: redis.on_failure; bindings and
// cool-downs: this process's own, as without Redis). Failures are counted by use and the limits' logged once.

import type { ResolvedRedis } from '../config/resolved.js';
import { MemoryLimiter } from '../limits/memory-limiter.js';
import { RedisLimiter } from '../limits/redis-limiter.js';
import { SharedLimiter } from '../limits/shared-limiter.js';
import type { Logger } from '../logging/logger.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { ChannelHealth } from '../routing/health.js';
import type { MemoryAffinityStore } from '../routing/memory-affinity.js';
import { RedisAffinityStore } from './redis-affinity.js';
import { RedisCooldowns } from './redis-cooldowns.js';
import { RedisRotation } from './redis-rotation.js';
import type { ChannelRotation } from '../routing/rotation.js';
import { RedisState } from './redis-state.js';

/** A killed instance's limit slots are free again after this. */
const SLOT_TTL_MS = 10_000;

export interface SharedState {
  readonly redis: RedisState;
  readonly limiter: SharedLimiter;
  readonly affinity: RedisAffinityStore;
  /** The fleet's cool-downs copied into `health`, and this process's told to the fleet. */
  readonly cooldowns: RedisCooldowns;
  /** The fleet's channel rotation (windows counted on Redis) copied into `rotation`. */
  readonly rotation: RedisRotation;
  close(): Promise<void>;
}

export interface SharedStateOptions {
  readonly logger: Logger;
  readonly metrics: GatewayMetrics;
  /** This process's channel health, which the fleet's cool-downs update. */
  readonly health: ChannelHealth;
  /** This process's channel rotation, which the fleet's changes update. */
  readonly rotation: ChannelRotation;
  /** This process's bindings: kept too, and used while Redis is out. */
  readonly localAffinity: MemoryAffinityStore;
  /** Whether a channel is one of the current config's (the fleet's news of others is ignored). */
  readonly knownChannel: (name: string) => boolean;
  /** The calendar clock tokens_per_day's days follow (a test's); the system's without. */
  readonly calendar?: () => number;
}

/** Connects (in the background) and starts the heartbeat and the cool-downs' subscription. */
export function startSharedState(redis: ResolvedRedis, options: SharedStateOptions): SharedState {
  const { logger, metrics } = options;
  let limiter: RedisLimiter | null = null;
  const state = new RedisState({
    url: redis.url,
    prefix: redis.prefix,
    logger,
    answerMs: redis.timeoutMs,
    onHeartbeat: async () => limiter?.renew(),
    onError: () => metrics.sharedStateErrors.inc(['heartbeat']),
  });
  const calendar = options.calendar ?? Date.now;
  limiter = new RedisLimiter(state.scripting, { prefix: redis.prefix, slotTtlMs: SLOT_TTL_MS, calendar });
  const shared = new SharedLimiter(limiter, new MemoryLimiter({ calendar }), {
    onFailure: redis.onFailure,
    timeoutMs: redis.timeoutMs,
    liveInstances: () => state.liveInstances,
    onError: (err, first) => {
      metrics.sharedStateErrors.inc(['limits']);
      if (first) {
        logger.warn(
          { err },
          redis.onFailure === 'open'
            ? `Redis is unreachable: rate limits now hold per instance (each shared limit divided by ${state.liveInstances} live instances) until it answers again`
            : 'Redis is unreachable: limited keys get 503 until it answers again (redis.on_failure: closed)',
        );
      }
    },
    onRecovered: () => logger.info('Redis answers again: rate limits are shared again'),
    gate: state.gate,
  });
  const affinity = new RedisAffinityStore(state, options.localAffinity, {
    prefix: redis.prefix,
    timeoutMs: redis.timeoutMs,
    onError: () => metrics.sharedStateErrors.inc(['affinity']),
  });
  const cooldowns = new RedisCooldowns(state, options.health, {
    prefix: redis.prefix,
    known: options.knownChannel,
    onError: () => metrics.sharedStateErrors.inc(['cooldowns']),
  });
  const rotation = new RedisRotation(state, options.rotation, {
    prefix: redis.prefix,
    known: options.knownChannel,
    onError: (err, first) => {
      metrics.sharedStateErrors.inc(['health']);
      if (first) logger.warn({ err }, 'Redis is unreachable: channel health windows are counted per instance until it answers again');
    },
    onRecovered: () => logger.info('Redis answers again: channel health windows are counted fleet-wide again'),
  });
  state.start();
  cooldowns.start();
  rotation.start();
  return {
    redis: state,
    limiter: shared,
    affinity,
    cooldowns,
    rotation,
    async close() {
      // The requests that ended last (the shutdown's) free their slots now, not 10 s from now.
      await shared.settled();
      await cooldowns.close();
      await rotation.close();
      await state.close();
    },
  };
}
