// Channel rotation on a Redis of the test's own: two instances count one window (a channel neither saw fail 3 times
// alone is out on both); a flip is told once (by the instance whose script made it); while Redis is down each instance
// counts its own window, says so once in the log, and is told again when Redis answers.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ResolvedHealth, ResolvedRedis } from '../../../core/config/resolved.js';
import { createSilentLogger, type Logger } from '../../../core/logging/logger.js';
import { GatewayMetrics } from '../../../core/metrics/gateway-metrics.js';
import { ChannelHealth } from '../../../core/routing/health.js';
import { MemoryAffinityStore } from '../../../core/routing/memory-affinity.js';
import { ChannelRotation, type RotationChange } from '../../../core/routing/rotation.js';
import { startSharedState, type SharedState } from '../../../core/shared/shared-state.js';
import { OwnRedis, ownRedisSkip } from '../../helpers/own-redis.js';
import { until } from '../../helpers/poll.js';

const HEALTH: ResolvedHealth = { errors: 3, window: 5, probeAfterMs: 1000, probeMaxMs: 4000 };
const WAIT = { timeoutMs: 10_000, intervalMs: 10 };

interface Instance {
  readonly shared: SharedState;
  readonly rotation: ChannelRotation;
  readonly changes: RotationChange[];
  readonly warnings: string[];
}

describe('channel rotation shared through Redis', { skip: ownRedisSkip }, () => {
  const redis = new OwnRedis();
  const instances: Instance[] = [];

  function instance(): Instance {
    const config: ResolvedRedis = { url: redis.url, prefix: 'rot:', onFailure: 'open', timeoutMs: 1000 };
    const rotation = new ChannelRotation(() => 0);
    const changes: RotationChange[] = [];
    rotation.onChange = (change) => changes.push(change);
    const warnings: string[] = [];
    const logger = Object.assign(createSilentLogger(), {
      warn: (_obj: unknown, msg?: string) => void warnings.push(String(msg)),
    }) as unknown as Logger;
    const shared = startSharedState(config, {
      logger,
      metrics: new GatewayMetrics({ defaultMetrics: false }),
      health: new ChannelHealth(),
      rotation,
      localAffinity: new MemoryAffinityStore(10),
      knownChannel: (name) => name === 'c',
    });
    const made = { shared, rotation, changes, warnings };
    instances.push(made);
    return made;
  }

  before(() => redis.start());
  after(async () => {
    for (const i of instances) await i.shared.close();
    await redis.stop();
  });

  it('counts one window for both, flips on both, tells it once; per instance while Redis is down', async () => {
    const a = instance();
    const b = instance();
    assert.equal(await a.shared.redis.ready(5000), true);
    assert.equal(await b.shared.redis.ready(5000), true);
    // Outcomes go to Redis only on a connection that is ready (else they are counted per instance, as tested below).
    await until('both connections ready', () => (a.shared.redis.client.isReady && b.shared.redis.client.isReady ? true : undefined), WAIT);
    a.rotation.record('c', HEALTH, 'failed', false);
    b.rotation.record('c', HEALTH, 'failed', false);
    a.rotation.record('c', HEALTH, 'failed', false);
    await until('c out on both', () => (a.rotation.check('c') === 'out' && b.rotation.check('c') === 'out' ? true : undefined), WAIT);
    // Outcomes are sent without waiting: which of the two ran the third failure on Redis is Redis's order.
    const told = [...a.changes, ...b.changes];
    assert.equal(told.length, 1, 'told once, by the instance whose script flipped it');
    assert.deepEqual([told[0]?.reason, told[0]?.failures], ['errors', 3]);
    const bBefore = b.changes.length;

    await redis.stop();
    await until('b sees Redis gone', () => (b.shared.redis.client.isReady ? undefined : true), WAIT);
    const d = 'c';
    b.rotation.taken(d, 0);
    for (let i = 0; i < 3; i++) b.rotation.record(d, HEALTH, 'failed', false);
    assert.equal(b.rotation.check(d), 'out', 'counted on its own');
    assert.equal(b.changes.length, bBefore + 1, 'told by the instance itself');
    assert.equal(b.warnings.filter((w) => w.includes('channel health windows are counted per instance')).length, 1, 'said once');
    await redis.start();
  });
});
