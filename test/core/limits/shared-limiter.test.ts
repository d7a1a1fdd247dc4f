// The failure policy of shared limits, against a redis-server this test starts on a port of its own and stops:
// while Redis is down no admission waits longer than the timeout (a hang would fail the deadline below); `open`
// admits under this instance's share of each limit, `closed` answers 503; when Redis is back, admissions go to it
// again without a restart. Skipped, with the reason, when redis-server is not installed.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { GatewayError } from '../../../core/errors.js';
import { dailyTokens } from '../../../core/limits/daily-tokens.js';
import type { LimitCheck } from '../../../core/limits/limiter.js';
import { MemoryLimiter } from '../../../core/limits/memory-limiter.js';
import { RedisLimiter, type RedisScripting } from '../../../core/limits/redis-limiter.js';
import { SharedLimiter } from '../../../core/limits/shared-limiter.js';
import { createSilentLogger } from '../../../core/logging/logger.js';
import { RedisState } from '../../../core/shared/redis-state.js';
import { OwnRedis, ownRedisSkip } from '../../helpers/own-redis.js';
import { until, withDeadline } from '../../helpers/poll.js';

const skip = ownRedisSkip;
const SOON = { timeoutMs: 5000, intervalMs: 20 };

describe('SharedLimiter when Redis goes away and comes back', { skip }, () => {
  const redis = new OwnRedis();
  let state: RedisState;
  const errors: boolean[] = [];
  let recovered = 0;
  const startRedis = (): Promise<void> => redis.start();
  const stopRedis = (): Promise<void> => redis.stop();

  const limiter = (onFailure: 'open' | 'closed', gated = false): SharedLimiter =>
    new SharedLimiter(new RedisLimiter(state.scripting, { prefix: 'test:' }), new MemoryLimiter(), {
      ...(gated ? { gate: state.gate } : {}),
      onFailure,
      timeoutMs: 100,
      liveInstances: () => 2,
      onError: (_err, first) => errors.push(first),
      onRecovered: () => recovered++,
    });

  before(async () => {
    await startRedis();
    state = new RedisState({ url: redis.url, prefix: 'test:', logger: createSilentLogger(), answerMs: 100 });
    state.start();
    assert.equal(await state.ready(5000), true);
  });
  after(async () => {
    await state.close();
    await stopRedis();
  });

  /** Admits with a deadline far above the 100 ms timeout: a hang fails here. */
  async function admitSoon(l: SharedLimiter, check: LimitCheck): Promise<Awaited<ReturnType<SharedLimiter['admit']>>> {
    return withDeadline(l.admit([check], 0), 3000, 'an admission answers (it waited on Redis past its timeout)');
  }

  it('open: served under this instance\'s share while Redis is down, shared again once it is back', async () => {
    const open = limiter('open');
    const check: LimitCheck = { subject: 'key:a', scope: 'key', label: 'key "a"', rpm: 10 };
    for (let i = 0; i < 3; i++) assert.equal((await admitSoon(open, check)).admitted, true);
    await stopRedis();
    // Down: half of rpm 10 (two instances alive) per instance, 5, whatever Redis had counted.
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await admitSoon(open, check));
    assert.equal(answers.filter((a) => a.admitted).length, 5);
    assert.deepEqual(errors.slice(0, 1), [true], 'the outage reported (logged once: only its first failure says first)');
    assert.ok(errors.slice(1).every((first) => !first));
    await startRedis();
    // The client reconnects by itself; admissions then go to the (new, empty) Redis again.
    const deadline = Date.now() + 10_000;
    while (!state.client.isReady && Date.now() < deadline) await sleep(50);
    assert.equal((await admitSoon(open, check)).admitted, true);
    assert.equal(recovered, 1);
  });

  it('open: a request under a tokens_per_day cap is refused while Redis is down (the fleet\'s count is there), others are served', async () => {
    const open = limiter('open');
    const daily: LimitCheck = { subject: 'key:tpd', scope: 'key', label: 'key "tpd"', tpd: dailyTokens(1000, undefined) };
    const rated: LimitCheck = { subject: 'key:rated', scope: 'key', label: 'key "rated"', rpm: 10 };
    assert.equal((await withDeadline(open.admit([daily], 10), 3000, 'admitted')).admitted, true);
    assert.equal(await open.usedToday(daily), 10);
    await stopRedis();
    await assert.rejects(
      withDeadline(open.admit([daily], 10), 3000, 'the admission is refused (it hung)'),
      (err: unknown) => err instanceof GatewayError && err.status === 503 && err.code === 'GW_ERR_LIMITS_UNAVAILABLE',
    );
    await assert.rejects(withDeadline(open.usedToday(daily), 3000, 'the count is not made up (it hung)'), (err: unknown) => err instanceof GatewayError && err.code === 'GW_ERR_LIMITS_UNAVAILABLE');
    assert.equal((await admitSoon(open, rated)).admitted, true, 'a key without a calendar cap is served on the share');
    await startRedis();
    const deadline = Date.now() + 10_000;
    while (!state.client.isReady && Date.now() < deadline) await sleep(50);
    assert.equal((await withDeadline(open.admit([daily], 10), 3000, 'admitted again')).admitted, true);
  });

  it('an admission Redis answers after the timeout gives its slot back at once (nobody holds that ticket)', async () => {
    // A Redis that answers the admission only once the limiter has stopped waiting for it.
    let gaveUp = (): void => undefined;
    const givenUp = new Promise<void>((resolve) => (gaveUp = resolve));
    let answeredLate = false;
    const slow: RedisScripting = {
      evalSha: async (sha, options) => {
        await givenUp;
        const answer = await state.scripting.evalSha(sha, options);
        answeredLate = true;
        return answer;
      },
      eval: (script, options) => state.scripting.eval(script, options),
      scriptLoad: (script) => state.scripting.scriptLoad(script),
    };
    const late = new SharedLimiter(new RedisLimiter(slow, { prefix: 'test:' }), new MemoryLimiter(), {
      onFailure: 'open',
      timeoutMs: 100,
      liveInstances: () => 1,
      onError: () => undefined,
    });
    const check: LimitCheck = { subject: 'key:late', scope: 'key', label: 'key "late"', concurrency: 1 };
    const served = await late.admit([check], 0);
    assert.ok(served.admitted, 'served under the local limit meanwhile');
    gaveUp();
    await until('Redis answers the admission late', () => (answeredLate ? true : undefined), SOON);
    await until('the late slot is removed, not left to block the key', async () => ((await state.client.zCard('test:rs:{key:late}')) === 0 ? true : undefined), SOON);
    await late.finish(served.ticket, null);
  });

  it('closed: 503 in the caller\'s shape while Redis is down', async () => {
    const closed = limiter('closed');
    const check: LimitCheck = { subject: 'key:b', scope: 'key', label: 'key "b"', rpm: 10 };
    assert.equal((await admitSoon(closed, check)).admitted, true);
    await stopRedis();
    await assert.rejects(
      withDeadline(closed.admit([check], 0), 3000, 'the admission is refused (it hung)'),
      (err: unknown) => err instanceof GatewayError && err.status === 503 && err.code === 'GW_ERR_LIMITS_UNAVAILABLE' && err.retryAfter === 1,
    );
    await startRedis();
  });

  it('Redis frozen (connections open, nothing answering): one admission waits the timeout, the next ones none', async () => {
    const open = limiter('open', true);
    const check: LimitCheck = { subject: 'key:frozen', scope: 'key', label: 'key "frozen"', rpm: 100 };
    const connected = Date.now() + 10_000;
    while (!state.client.isReady && Date.now() < connected) await sleep(50);
    assert.equal((await admitSoon(open, check)).admitted, true);
    assert.equal(await state.client.zCard('test:rs:{key:frozen}'), 0);
    assert.ok((await state.client.exists('test:rl:{key:frozen}')) === 1, 'admitted on Redis before the freeze');
    redis.pause();
    try {
      const waits: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        assert.equal((await admitSoon(open, check)).admitted, true, 'served under the local share');
        waits.push(performance.now() - started);
      }
      // The first waits the 100 ms timeout; after it, Redis is skipped (a probe every 250 ms may wait again).
      assert.ok((waits[0] ?? 0) >= 90, `the first waited ${waits[0]} ms`);
      assert.ok(waits.slice(1).filter((ms) => ms >= 90).length <= 1, `waits: ${waits.map((ms) => Math.round(ms)).join(' ')}`);
    } finally {
      redis.resume();
    }
    // Answering again: a probe (or the heartbeat) opens the gate, and admissions go to Redis again.
    const deadline = Date.now() + 5000;
    while (!(await state.client.ping().then(() => true, () => false)) && Date.now() < deadline) await sleep(50);
    await until('an admission finds the gate open again', async () => {
      await admitSoon(open, check);
      return state.gate.open() ? true : undefined;
    }, SOON);
  });
});
