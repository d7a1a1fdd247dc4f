// Limits shared through Redis (GATEWAY_TEST_REDIS_URL; skipped with the reason when it is not set): two limiters
// stand for two instances. Exactly the limit is admitted across both; a slot is held until its request ends, or,
// for an instance that died, until its expiry; renewals keep a long request's slot; tokens are corrected across
// instances. Each run has a key prefix of its own, deleted at the end.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import type { Admission, LimitCheck, Ticket } from '../../../core/limits/limiter.js';
import { RedisLimiter } from '../../../core/limits/redis-limiter.js';
import { until } from '../../helpers/poll.js';

const REDIS_URL = process.env['GATEWAY_TEST_REDIS_URL'];
const skip = REDIS_URL === undefined ? 'GATEWAY_TEST_REDIS_URL is not set (no Redis server to test against; .ci/run sets it)' : undefined;

function ticketOf(a: Admission): Ticket {
  assert.ok(a.admitted, a.admitted ? '' : `refused by ${a.refused.kind} of ${a.refused.label}`);
  return a.ticket;
}

describe('RedisLimiter', { skip }, () => {
  const client = createClient({ url: REDIS_URL ?? 'redis://127.0.0.1:6379' });
  const prefix = `gwtest:${process.pid}:${randomUUID()}:`;
  const limiter = (options: { slotTtlMs?: number; periodMs?: number } = {}): RedisLimiter => new RedisLimiter(client, { prefix, ...options });
  let n = 0;
  /** A subject no other test uses. */
  const check = (limits: Omit<LimitCheck, 'subject' | 'scope' | 'label'>): LimitCheck => ({ subject: `key:k${++n}`, scope: 'key', label: `key "k${n}"`, ...limits });

  before(async () => {
    await client.connect();
  });
  after(async () => {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length > 0) await client.del(keys);
    client.destroy();
  });

  it('admits exactly rpm across two instances, 25 at once split 8 and 17', async () => {
    const [a, b] = [limiter(), limiter()];
    const c = check({ rpm: 10 });
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => (i < 8 ? a : b).admit([c], 0)));
    assert.equal(answers.filter((x) => x.admitted).length, 10);
    const refused = answers.find((x) => !x.admitted);
    assert.ok(refused !== undefined && !refused.admitted);
    assert.equal(refused.refused.kind, 'rpm');
    assert.equal(refused.refused.remaining, 0);
    assert.ok(refused.retryAfterMs > 5000 && refused.retryAfterMs <= 6000, `retry after ${refused.retryAfterMs} ms`);
  });

  it('refills on its period (a test-only short one)', async () => {
    const fast = limiter({ periodMs: 1000 });
    const c = check({ rpm: 2 });
    ticketOf(await fast.admit([c], 0));
    ticketOf(await fast.admit([c], 0));
    assert.equal((await fast.admit([c], 0)).admitted, false);
    // A refused admission takes nothing: asking again until the bucket refills is fair.
    const refilled = await until('the bucket refills', async () => {
      const answer = await fast.admit([c], 0);
      return answer.admitted ? answer : undefined;
    }, { timeoutMs: 3000, intervalMs: 20 });
    ticketOf(refilled);
  });

  it('shares slots: concurrency 3 across two instances, freed when a request ends', async () => {
    const [a, b] = [limiter(), limiter()];
    const c = check({ concurrency: 3 });
    const first = ticketOf(await a.admit([c], 0));
    ticketOf(await b.admit([c], 0));
    ticketOf(await a.admit([c], 0));
    const fourth = await b.admit([c], 0);
    assert.ok(!fourth.admitted && fourth.refused.kind === 'concurrency');
    await a.finish(first, null);
    ticketOf(await b.admit([c], 0));
  });

  it('frees the slot of an instance that died after its expiry; a live one renews its own', async () => {
    const dead = limiter({ slotTtlMs: 400 });
    const live = limiter({ slotTtlMs: 400 });
    const other = limiter({ slotTtlMs: 400 });
    const c = check({ concurrency: 2 });
    ticketOf(await dead.admit([c], 0)); // never finished, never renewed: its process was killed
    ticketOf(await live.admit([c], 0));
    // Slots are scored by their expiry on Redis's clock: wait, renewing the live one, until both first expiries passed.
    const firstExpiries = (await client.zRangeWithScores(`${prefix}rs:{${c.subject}}`, 0, -1)).map((slot) => slot.score);
    assert.equal(firstExpiries.length, 2);
    await until('both slots outlived their first expiry', async () => {
      await live.renew();
      const [seconds, micros] = await client.time();
      return Number(seconds) * 1000 + Number(micros) / 1000 > Math.max(...firstExpiries) ? true : undefined;
    }, { timeoutMs: 5000, intervalMs: 40 });
    // The dead instance's slot expired, the live one's did not.
    ticketOf(await other.admit([c], 0));
    assert.equal((await other.admit([c], 0)).admitted, false, 'the live slot and the new one fill it');
  });

  it('corrects tokens to the usage across instances: the fourth of ~300 refused with Used 900', async () => {
    const [a, b] = [limiter(), limiter()];
    const c = check({ tpm: 1000 });
    for (const [owner, estimate] of [
      [a, 310],
      [b, 320],
      [a, 280],
    ] as const) {
      const t = ticketOf(await owner.admit([c], estimate));
      await owner.finish(t, 300);
    }
    const fourth = await b.admit([c], 310);
    assert.ok(!fourth.admitted);
    assert.equal(fourth.refused.kind, 'tpm');
    assert.ok(fourth.refused.limit - fourth.refused.remaining >= 899 && fourth.refused.limit - fourth.refused.remaining <= 900, `used ${fourth.refused.limit - fourth.refused.remaining}`);
  });

  it('checks every limit at once: one refusal takes nothing from the others, across instances', async () => {
    const [a, b] = [limiter(), limiter()];
    const account: LimitCheck = { subject: `account:acct${++n}`, scope: 'account', label: 'account', rpm: 100, concurrency: 10 };
    const key = check({ rpm: 1 });
    ticketOf(await a.admit([key, account], 0));
    const refused = await b.admit([key, account], 0);
    assert.ok(!refused.admitted && refused.refused.scope === 'key');
    const other = await b.admit([check({ rpm: 5 }), account], 0);
    assert.ok(other.admitted);
    assert.equal(other.states.find((s) => s.scope === 'account' && s.kind === 'rpm')?.remaining, 98, 'the account lost two requests, not three');
    assert.equal(other.states.find((s) => s.scope === 'account' && s.kind === 'concurrency')?.remaining, 8);
  });
});
