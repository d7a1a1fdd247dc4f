// Channel rotation on a Redis of the test's own: two instances count one window (a channel neither saw fail 3 times
// alone is out on both); a flip is told once (by the instance whose script made it); while Redis is down each instance
// counts its own window, says so once in the log, and is told again when Redis answers. Outcomes run a loaded script
// (EVALSHA, no list read back), successes on a clean window are not sent at all, and an outcome about a channel the
// fleet has out already (this instance not told yet) takes it out here at once.

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
import { createClient } from 'redis';

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
  /** The rotations' clock: still until a test moves it (the last one). */
  const clock = { t: 0 };

  function instance(): Instance {
    const config: ResolvedRedis = { url: redis.url, prefix: 'rot:', onFailure: 'open', timeoutMs: 1000 };
    const rotation = new ChannelRotation(() => clock.t);
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
      knownChannel: (name) => ['c', 'd', 'e', 'f'].includes(name),
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

  async function bothReady(a: Instance, b: Instance): Promise<void> {
    await until('both connections ready', () => (a.shared.redis.client.isReady && b.shared.redis.client.isReady ? true : undefined), WAIT);
    await Promise.all([a.shared.rotation.loaded(), b.shared.rotation.loaded()]);
  }

  async function commandCalls(): Promise<Record<string, number>> {
    const client = createClient({ url: redis.url });
    await client.connect();
    const info = await client.info('commandstats');
    await client.quit();
    const calls: Record<string, number> = {};
    for (const m of info.matchAll(/cmdstat_(\w+):calls=(\d+)/g)) calls[m[1] as string] = Number(m[2]);
    return calls;
  }

  it('runs a loaded script, reads no list back, and sends successes only while the fleet window holds a failure', async () => {
    const a = instance();
    const b = instance();
    await bothReady(a, b);
    // The outcomes each instance sends about channel d, counted at its own client: Redis-wide counts also hold each
    // instance's state reads (at every connection) and heartbeats, which come when they come.
    const sent = (i: Instance): { n: number } => {
      const seen = { n: 0 };
      const client = i.shared.redis.client as unknown as Record<'evalSha' | 'eval', (x: string, o?: { keys?: string[] }) => Promise<unknown>>;
      for (const method of ['evalSha', 'eval'] as const) {
        const original = client[method].bind(client);
        client[method] = (x, o) => {
          if (o?.keys?.some((k) => k.endsWith('window:d')) === true) seen.n++;
          return original(x, o);
        };
      }
      return seen;
    };
    const [fromA, fromB] = [sent(a), sent(b)];
    // b sees a failure: a hears that the window holds one, and counts its successes again (they push it out).
    b.rotation.record('d', HEALTH, 'failed', false);
    await until('b sends its failure (its script loaded first)', () => (fromB.n === 1 ? true : undefined), WAIT);
    await until('a sends successes again, once told the window holds a failure', () => {
      a.rotation.record('d', HEALTH, 'served', false);
      return fromA.n > 0 ? true : undefined;
    }, WAIT);
    // Five successes push the failure out of the window of 5: clean again, and a stops sending.
    for (let i = 0; i < 5; i++) a.rotation.record('d', HEALTH, 'served', false);
    await until('clean again', async () => {
      const settled = fromA.n;
      await new Promise((r) => setImmediate(r));
      for (let i = 0; i < 5; i++) a.rotation.record('d', HEALTH, 'served', false);
      return fromA.n === settled ? true : undefined;
    }, WAIT);
    // Its script is loaded by now, so a success that were sent would reach the client at once (no load first).
    const clean = fromA.n;
    for (let i = 0; i < 50; i++) a.rotation.record('d', HEALTH, 'served', false);
    assert.equal(fromA.n, clean, 'a clean window: no success is sent');
    const calls = await commandCalls();
    assert.ok((calls['evalsha'] ?? 0) > 0, 'EVALSHA of a loaded script');
    assert.equal(calls['lrange'], undefined, 'no list read back');
    assert.equal(a.rotation.check('d'), 'in');
  });

  it('takes a channel out at once when the fleet has it out already and this instance was not told', async () => {
    const a = instance();
    await until('ready', () => (a.shared.redis.client.isReady ? true : undefined), WAIT);
    // a has read the fleet's state (else that first read could find e out before its own outcome does).
    await a.shared.rotation.loaded();
    // Another instance took e out (written as the script writes it, no notice published): a has not heard.
    const client = createClient({ url: redis.url });
    await client.connect();
    const nowMs = Number(await client.eval("local t = redis.call('TIME') return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)"));
    await client.hSet('rot:health', 'e', `3000:${nowMs + 2500}:7`);
    await client.quit();
    assert.equal(a.rotation.check('e'), 'in');
    a.rotation.record('e', HEALTH, 'failed', false);
    await until('e out on a from the script\'s answer', () => (a.rotation.check('e') === 'out' ? true : undefined), WAIT);
    assert.equal(a.rotation.serialOf('e'), '7');
    const due = a.rotation.dueInMs('e');
    assert.ok(due > 0 && due <= 2500, `due in ${due} ms, as the fleet's time out says`);
    assert.equal(a.changes.length, 0, 'not a change of this instance\'s');
  });

  it('a probe given back (its request sent nothing) may be taken at once by an instance that lost the claim to it', async () => {
    const a = instance();
    const b = instance();
    await bothReady(a, b);
    for (let i = 0; i < 3; i++) a.rotation.record('f', HEALTH, 'failed', false);
    await until('f out on both', () => (a.rotation.check('f') === 'out' && b.rotation.check('f') === 'out' ? true : undefined), WAIT);
    clock.t += HEALTH.probeAfterMs;
    assert.equal(await a.rotation.claimProbe('f'), true);
    assert.equal(await b.rotation.claimProbe('f'), false, 'a holds it fleet-wide');
    assert.equal(b.rotation.check('f'), 'out', 'b leaves it to the probe in flight');
    a.rotation.releaseProbe('f');
    assert.equal(a.rotation.check('f'), 'due', 'due again here at once');
    await until('due again on b', () => (b.rotation.check('f') === 'due' ? true : undefined), WAIT);
    assert.equal(await b.rotation.claimProbe('f'), true, 'b takes it now, not after the lease');
  });
});
