// Conversation bindings and channel cool-downs shared through Redis (issue 24), between two instances' shared states
// on a redis-server this test starts on a port of its own and stops: a binding written by one is read by the other;
// a cool-down set or cleared by one reaches the other's channel health; an instance that connects later reads the
// cool-downs already running; while Redis is down bindings and cool-downs stay per instance (no call waits past the
// timeout, failures counted) and both are shared again once it is back, without a restart.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { ResolvedRedis } from '../../../core/config/resolved.js';
import { createSilentLogger } from '../../../core/logging/logger.js';
import { GatewayMetrics } from '../../../core/metrics/gateway-metrics.js';
import { ChannelHealth } from '../../../core/routing/health.js';
import { MemoryAffinityStore } from '../../../core/routing/memory-affinity.js';
import { startSharedState, type SharedState } from '../../../core/shared/shared-state.js';
import { series } from '../../helpers/metric-series.js';
import { OwnRedis, ownRedisSkip } from '../../helpers/own-redis.js';

interface Instance {
  readonly shared: SharedState;
  readonly health: ChannelHealth;
  readonly local: MemoryAffinityStore;
  readonly metrics: GatewayMetrics;
}

/** Polls until `check` holds (Redis's pub/sub delivers within milliseconds; the bound is generous). */
async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await sleep(10);
  }
}

describe('bindings and cool-downs shared through Redis', { skip: ownRedisSkip }, () => {
  const redis = new OwnRedis();
  const instances: Instance[] = [];

  async function instance(): Promise<Instance> {
    const config: ResolvedRedis = { url: redis.url, prefix: 'test:', onFailure: 'open' };
    const health = new ChannelHealth();
    const local = new MemoryAffinityStore(100);
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const shared = startSharedState(config, { logger: createSilentLogger(), metrics, health, localAffinity: local });
    assert.equal(await shared.redis.ready(5000), true);
    const made = { shared, health, local, metrics };
    instances.push(made);
    return made;
  }

  async function reconnected(): Promise<void> {
    await eventually(() => instances.every((i) => i.shared.redis.client.isReady), 'every instance reconnected');
    // The subscriber connections reconnect on their own schedule: a cool-down published meanwhile is read from the
    // hash when each comes back, which the last test checks; here, one beat for them.
    await sleep(500);
  }

  before(async () => {
    await redis.start();
  });
  after(async () => {
    for (const i of instances) await i.shared.close();
    await redis.stop();
  });

  it('a binding one instance writes is what the other reads', async () => {
    const [a, b] = [await instance(), await instance()];
    await a.shared.affinity.set('conv-1', { channel: 'east', keyIndex: 2 }, 60_000);
    assert.deepEqual(await b.shared.affinity.get('conv-1'), { channel: 'east', keyIndex: 2 });
    assert.equal(await b.local.get('conv-1'), null, 'read from Redis, not from its own table');
    // A channel name with a colon survives the round trip.
    await b.shared.affinity.set('conv-2', { channel: 'a:b', keyIndex: 0 }, 60_000);
    assert.deepEqual(await a.shared.affinity.get('conv-2'), { channel: 'a:b', keyIndex: 0 });
    assert.equal(await a.shared.affinity.get('conv-unknown'), null);
  });

  it('a cool-down set by one instance reaches the other, and so does its end', async () => {
    const [a, b] = instances as [Instance, Instance];
    a.health.markFailure('east', 60_000);
    await eventually(() => b.health.isCooling('east'), 'B sees east cooling');
    // A success on a cooling channel ends the cool-down for the fleet.
    b.health.markSuccess('east');
    await eventually(() => !a.health.isCooling('east'), 'A sees east healthy again');
    // A cool-down of 0 ms (none configured) is nobody's news.
    a.health.markFailure('west', 0);
    await sleep(100);
    assert.equal(b.health.isCooling('west'), false);
  });

  it('an instance that connects later reads the cool-downs already running', async () => {
    const [a] = instances as [Instance];
    a.health.markFailure('north', 60_000);
    await eventually(() => (instances[1] as Instance).health.isCooling('north'), 'B sees north cooling');
    const c = await instance();
    await eventually(() => c.health.isCooling('north'), 'C, started later, sees north cooling');
    assert.equal(c.health.isCooling('east'), false, 'an ended cool-down is not loaded');
  });

  it('Redis down: bindings and cool-downs stay per instance, no call waits past the timeout; shared again once it is back', async () => {
    const [a, b] = instances as [Instance, Instance];
    await redis.stop();
    await eventually(() => !a.shared.redis.client.isReady, 'A saw Redis go');
    const started = Date.now();
    await a.shared.affinity.set('conv-down', { channel: 'west', keyIndex: 1 }, 60_000);
    assert.deepEqual(await a.shared.affinity.get('conv-down'), { channel: 'west', keyIndex: 1 }, 'A keeps its own binding');
    assert.equal(await b.shared.affinity.get('conv-down'), null, 'B cannot know it');
    a.health.markFailure('south', 60_000);
    assert.equal(a.health.isCooling('south'), true, 'A keeps its own cool-down');
    assert.ok(Date.now() - started < 1000, `calls waited ${Date.now() - started} ms`);
    const errors = series(await a.metrics.registry.metrics(), 'gateway_shared_state_errors_total');
    assert.ok((errors['{use="cooldowns"}'] ?? 0) >= 1, JSON.stringify(errors));

    await redis.start();
    await reconnected();
    await a.shared.affinity.set('conv-up', { channel: 'east', keyIndex: 0 }, 60_000);
    assert.deepEqual(await b.shared.affinity.get('conv-up'), { channel: 'east', keyIndex: 0 });
    b.health.markFailure('far', 60_000);
    await eventually(() => a.health.isCooling('far'), 'A sees B\'s cool-down after the outage');
  });
});
