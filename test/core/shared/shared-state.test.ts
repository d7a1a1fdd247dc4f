// Conversation bindings and channel cool-downs shared through Redis (issue 24), between instances' shared states on
// a redis-server this test starts on a port of its own, stops and freezes: a binding written by one is read by the
// other; a cool-down set or cleared by one reaches the others' channel health (news of channels not configured is
// ignored); an instance that connects later, or reconnects, reads the cool-downs already running from the hash.
// While Redis is down, bindings and cool-downs stay per instance, and a binding made then is still used after;
// while Redis is frozen (connections open, nothing answering) a request waits at most the timeout once, then not at
// all until Redis answers a probe; everything is shared again once it is back, without a restart.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import type { ResolvedRedis } from '../../../core/config/resolved.js';
import { createSilentLogger } from '../../../core/logging/logger.js';
import { GatewayMetrics } from '../../../core/metrics/gateway-metrics.js';
import { ChannelRotation } from '../../../core/routing/rotation.js';
import { ChannelHealth } from '../../../core/routing/health.js';
import { MemoryAffinityStore } from '../../../core/routing/memory-affinity.js';
import { startSharedState, type SharedState } from '../../../core/shared/shared-state.js';
import { series } from '../../helpers/metric-series.js';
import { OwnRedis, ownRedisSkip } from '../../helpers/own-redis.js';
import { until } from '../../helpers/poll.js';

interface Instance {
  readonly shared: SharedState;
  readonly health: ChannelHealth;
  readonly local: MemoryAffinityStore;
  readonly metrics: GatewayMetrics;
}

/** The channels every instance's config has. */
const CHANNELS = new Set(['east', 'west', 'north', 'south', 'far', 'missed', 'thaw', 'marker']);

/** Polls until `check` holds (Redis's pub/sub delivers within milliseconds; the bound is generous). */
async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await sleep(10);
  }
}

/** How long `call` took, ms. */
async function took(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

describe('bindings and cool-downs shared through Redis', { skip: ownRedisSkip }, () => {
  const redis = new OwnRedis();
  const instances: Instance[] = [];

  async function instance(): Promise<Instance> {
    const config: ResolvedRedis = { url: redis.url, prefix: 'test:', onFailure: 'open', timeoutMs: 100 };
    const health = new ChannelHealth();
    const local = new MemoryAffinityStore(100);
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const shared = startSharedState(config, { logger: createSilentLogger(), metrics, health, rotation: new ChannelRotation(), localAffinity: local, knownChannel: (name) => CHANNELS.has(name) });
    assert.equal(await shared.redis.ready(5000), true);
    const made = { shared, health, local, metrics };
    instances.push(made);
    return made;
  }

  /** A plain client of the test's own, for what no instance would do. */
  async function connectRaw() {
    const client = createClient({ url: redis.url });
    await client.connect();
    return client;
  }
  async function raw<T>(use: (client: Awaited<ReturnType<typeof connectRaw>>) => Promise<T>): Promise<T> {
    const client = await connectRaw();
    try {
      return await use(client);
    } finally {
      client.destroy();
    }
  }

  /** Resolves once `count` connections subscribe to the cool-downs' channel (one per instance). */
  async function subscribed(count: number): Promise<void> {
    await raw((c) =>
      until(`${count} subscribers`, async () => ((await c.pubSubNumSub('test:cooldowns'))['test:cooldowns'] === count ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 }),
    );
  }

  before(async () => {
    await redis.start();
  });
  after(async () => {
    redis.resume();
    for (const i of instances) await i.shared.close();
    await redis.stop();
  });

  it('a binding one instance writes is what the other reads; Redis holds no client string', async () => {
    const [a, b] = [await instance(), await instance()];
    await a.shared.affinity.set('conv-1\u0000a user id', { channel: 'east', keyIndex: 2 }, 60_000);
    assert.deepEqual(await b.shared.affinity.get('conv-1\u0000a user id'), { channel: 'east', keyIndex: 2 });
    assert.equal(await b.local.get('conv-1\u0000a user id'), null, 'read from Redis, not from its own table');
    const keys = await raw((c) => c.keys('test:aff:*'));
    assert.equal(keys.length, 1);
    assert.doesNotMatch(keys[0] as string, /user/, 'the key is a digest');
    // A channel name with a colon survives the round trip.
    await b.shared.affinity.set('conv-2', { channel: 'a:b', keyIndex: 0 }, 60_000);
    assert.deepEqual(await a.shared.affinity.get('conv-2'), { channel: 'a:b', keyIndex: 0 });
    assert.equal(await a.shared.affinity.get('conv-unknown'), null);
  });

  it('a cool-down set by one instance reaches the other, and so does its end; news of unknown channels is ignored', async () => {
    const [a, b] = instances as [Instance, Instance];
    a.health.markFailure('east', 60_000);
    await eventually(() => b.health.isCooling('east'), 'B sees east cooling');
    // A success on a cooling channel ends the cool-down for the fleet.
    b.health.markSuccess('east');
    await eventually(() => !a.health.isCooling('east'), 'A sees east healthy again');
    // A failure with no cool-down configured (0 ms) is not told as a recovery: B's cool-down of west holds on A.
    b.health.markFailure('west', 60_000);
    await eventually(() => a.health.isCooling('west'), 'A sees west cooling');
    a.health.markFailure('west', 0);
    // A's news reach B in the order A told them: once B has A's next one, it would have had a recovery of west.
    a.health.markFailure('marker', 60_000);
    await eventually(() => b.health.isCooling('marker'), 'B sees the marker cooling');
    assert.equal(b.health.isCooling('west'), true);
    a.health.markSuccess('marker');
    // A name no config has (a spoofed or stale message) takes no memory.
    await raw((c) => c.publish('test:cooldowns', JSON.stringify({ channel: 'nowhere', ms: 60_000 })));
    await raw((c) => c.publish('test:cooldowns', JSON.stringify({ channel: 'far', ms: 60_000 })));
    await eventually(() => a.health.isCooling('far'), 'a known channel is taken');
    assert.equal(a.health.isCooling('nowhere'), false);
    b.health.markSuccess('far');
    a.health.markSuccess('far');
  });

  it('an instance that connects later, or reconnects, reads the cool-downs already running', async () => {
    const [a, b] = instances as [Instance, Instance];
    a.health.markFailure('north', 60_000);
    await eventually(() => b.health.isCooling('north'), 'B sees north cooling');
    const c = await instance();
    await eventually(() => c.health.isCooling('north'), 'C, started later, sees north cooling');
    assert.equal(c.health.isCooling('east'), false, 'an ended cool-down is not loaded');
    // A cool-down whose message B missed (written to the hash only): B learns it when its subscription reconnects.
    await raw(async (client) => {
      const [seconds] = await client.time();
      await client.hSet('test:cooldowns', 'missed', String(Number(seconds) * 1000 + 60_000));
      await client.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    });
    await eventually(() => b.health.isCooling('missed'), 'B read the hash again on reconnecting');
  });

  it('Redis down: bindings and cool-downs stay per instance, no call waits; a binding made then is used after', async () => {
    const [a, b] = instances as [Instance, Instance];
    await redis.stop();
    await eventually(() => !a.shared.redis.client.isReady, 'A saw Redis go');
    const waited = await took(async () => {
      await a.shared.affinity.set('conv-down', { channel: 'west', keyIndex: 1 }, 60_000);
      assert.deepEqual(await a.shared.affinity.get('conv-down'), { channel: 'west', keyIndex: 1 }, 'A keeps its own binding');
      assert.equal(await b.shared.affinity.get('conv-down'), null, 'B cannot know it');
    });
    assert.ok(waited < 50, `calls to a disconnected Redis waited ${waited} ms`);
    a.health.markFailure('south', 60_000);
    assert.equal(a.health.isCooling('south'), true, 'A keeps its own cool-down');
    const errors = series(await a.metrics.registry.metrics(), 'gateway_shared_state_errors_total');
    assert.ok((errors['{use="cooldowns"}'] ?? 0) >= 1, JSON.stringify(errors));

    await redis.start();
    await eventually(() => instances.every((i) => i.shared.redis.client.isReady), 'every instance reconnected');
    assert.deepEqual(await a.shared.affinity.get('conv-down'), { channel: 'west', keyIndex: 1 }, 'Redis knows none: A\'s own still holds');
    await a.shared.affinity.set('conv-up', { channel: 'east', keyIndex: 0 }, 60_000);
    assert.deepEqual(await b.shared.affinity.get('conv-up'), { channel: 'east', keyIndex: 0 });
    // Every subscriber is back (each on its own schedule): a cool-down told now reaches A.
    await subscribed(instances.length);
    b.health.markFailure('far', 60_000);
    await eventually(() => a.health.isCooling('far'), 'A sees B\'s cool-down after the outage');
  });

  it('Redis frozen: one call waits the timeout, then only a probe every 250 ms; a shutdown does not hang; the dead connection is made anew and all is shared again', async () => {
    const [a, b, c] = instances as [Instance, Instance, Instance];
    await a.shared.affinity.set('conv-frozen', { channel: 'north', keyIndex: 0 }, 60_000);
    redis.pause();
    try {
      const first = await took(() => b.shared.affinity.get('conv-frozen'));
      assert.ok(first >= 90 && first < 1000, `the first call waited ${first} ms (the timeout is 100)`);
      const next = await Promise.all(Array.from({ length: 20 }, () => took(() => b.shared.affinity.get('conv-frozen'))));
      assert.ok(next.every((ms) => ms < 50), `waits: ${next.map((ms) => Math.round(ms)).join(' ')}`);
      assert.equal(await b.shared.affinity.get('conv-frozen'), null, 'B\'s own table has none');
      // Calls take no time until the next probe is let through, and waits its timeout.
      const probe = await until('a probe is let through', async () => {
        const ms = await took(() => b.shared.affinity.get('conv-frozen'));
        return ms >= 90 ? ms : undefined;
      }, { timeoutMs: 3000, intervalMs: 20 });
      const afterProbe = await took(() => b.shared.affinity.get('conv-frozen'));
      assert.ok(probe >= 90 && afterProbe < 50, `a probe waited ${probe} ms, the call after it ${afterProbe} ms`);
      // A shutdown while Redis is frozen ends (its goodbye to Redis is bounded).
      instances.splice(instances.indexOf(c), 1);
      const closing = await took(() => c.shared.close());
      assert.ok(closing < 3000, `closing took ${closing} ms`);
      // The heartbeat (unanswered for 1.5 s) finds the connection dead and makes a new one.
      await until('B\'s heartbeat fails', async () => {
        const errors = series(await b.metrics.registry.metrics(), 'gateway_shared_state_errors_total');
        return (errors['{use="heartbeat"}'] ?? 0) >= 1 ? true : undefined;
      }, { timeoutMs: 10_000, intervalMs: 50 });
    } finally {
      redis.resume();
    }
    const deadline = Date.now() + 10_000;
    let binding = await b.shared.affinity.get('conv-frozen');
    while (binding === null && Date.now() < deadline) {
      await sleep(50);
      binding = await b.shared.affinity.get('conv-frozen');
    }
    assert.deepEqual(binding, { channel: 'north', keyIndex: 0 });
    // The subscriptions were made anew too: cool-downs travel again.
    await subscribed(instances.length);
    a.health.markFailure('thaw', 60_000);
    await eventually(() => b.health.isCooling('thaw'), 'B sees A\'s cool-down after the freeze');
  });
});
