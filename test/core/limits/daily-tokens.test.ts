// limits.tokens_per_day (issue 45) in each limiter: a count per calendar day of what admitted requests reserved
// (their estimates), corrected to their usage at their end, in the day they were admitted in. The memory limiter
// (one process) and the Redis one (two limiters standing for two instances; skipped with the reason without
// GATEWAY_TEST_REDIS_URL) are held to the same story, with the calendar clock moved by hand past a Berlin midnight.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import type { Admission, LimitCheck, Limiter, Ticket } from '../../../core/limits/limiter.js';
import { dailyTokens } from '../../../core/limits/daily-tokens.js';
import { MemoryLimiter } from '../../../core/limits/memory-limiter.js';
import { RedisLimiter } from '../../../core/limits/redis-limiter.js';

const REDIS_URL = process.env['GATEWAY_TEST_REDIS_URL'];
const redisSkip = REDIS_URL === undefined ? 'GATEWAY_TEST_REDIS_URL is not set (no Redis server to test against; .ci/run sets it)' : undefined;

/** 22:00 UTC on 29 November: 23:00 in Berlin, whose day ends at 23:00 UTC. */
const EVENING = Date.parse('2026-11-29T22:00:00Z');
const BERLIN_MIDNIGHT = Date.parse('2026-11-29T23:00:00Z');

function ticketOf(a: Admission): Ticket {
  assert.ok(a.admitted, a.admitted ? '' : `refused by ${a.refused.kind} of ${a.refused.label}`);
  return a.ticket;
}

function refusedOf(a: Admission): Extract<Admission, { admitted: false }> {
  assert.ok(!a.admitted, 'admitted');
  return a;
}

interface Fleet {
  /** Two limiters sharing their state (the memory one: the same limiter twice). */
  readonly a: Limiter;
  readonly b: Limiter;
  /** Sets the calendar clock. */
  at(time: number): void;
}

function story(name: string, make: () => Fleet, skip?: string): void {
  describe(`tokens_per_day: ${name}`, { skip }, () => {
    let n = 0;
    const check = (tokens: number, timezone?: string): LimitCheck => ({ subject: `key:d${++n}-${randomUUID()}`, scope: 'key', label: `key "d${n}"`, tpd: dailyTokens(tokens, timezone) });

    it('admits while the day count plus the estimate fits, exactly, across both; refuses with the day end', async () => {
      const fleet = make();
      fleet.at(EVENING);
      const c = check(1000, 'Europe/Berlin');
      // 30 requests of 100 tokens at once, split between the two: exactly 10 fit in 1000.
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? fleet.a : fleet.b).admit([c], 100)));
      assert.equal(answers.filter((x) => x.admitted).length, 10);
      const refused = refusedOf(answers.find((x) => !x.admitted) as Admission);
      assert.equal(refused.refused.kind, 'tpd');
      assert.equal(refused.refused.remaining, 0);
      assert.equal(refused.refused.limit, 1000);
      assert.equal(refused.refused.resetsAt, BERLIN_MIDNIGHT, 'the Berlin day ends at 23:00 UTC');
      assert.equal(refused.retryAfterMs, BERLIN_MIDNIGHT - EVENING);
      assert.equal(refused.requested, 100);
      assert.equal(await fleet.a.usedToday(c), 1000);
    });

    it('corrects the count to the usage at the end: tokens not used are admitted again, and a request that failed frees all', async () => {
      const fleet = make();
      fleet.at(EVENING);
      const c = check(1000);
      const first = ticketOf(await fleet.a.admit([c], 600));
      const second = ticketOf(await fleet.b.admit([c], 400));
      assert.equal((await fleet.a.admit([c], 1)).admitted, false, 'the day is full of reservations');
      // The first used 250 of its 600; the second failed (0 used).
      await fleet.b.finish(first, 250);
      await fleet.a.finish(second, 0);
      assert.equal(await fleet.a.usedToday(c), 250);
      assert.equal(await fleet.b.usedToday(c), 250);
      ticketOf(await fleet.b.admit([c], 750));
      const over = refusedOf(await fleet.a.admit([c], 1));
      assert.equal(over.refused.kind, 'tpd');
      // An unreported usage (null) leaves the estimate standing.
      assert.equal(await fleet.a.usedToday(c), 1000);
    });

    it('a new day starts from zero; a request admitted the day before is corrected in its own day, not the new one', async () => {
      const fleet = make();
      fleet.at(BERLIN_MIDNIGHT - 1);
      const c = check(500, 'Europe/Berlin');
      const late = ticketOf(await fleet.a.admit([c], 500));
      assert.equal((await fleet.b.admit([c], 1)).admitted, false);
      fleet.at(BERLIN_MIDNIGHT);
      assert.equal(await fleet.a.usedToday(c), 0, 'the new day has counted nothing');
      const today = ticketOf(await fleet.b.admit([c], 300));
      // The stream of the evening before ends past midnight using 100 of its 500: the new day is not given 400.
      await fleet.a.finish(late, 100);
      assert.equal(await fleet.b.usedToday(c), 300);
      await fleet.b.finish(today, 300);
      ticketOf(await fleet.a.admit([c], 200));
      assert.equal((await fleet.a.admit([c], 1)).admitted, false);
    });

    it('a request asking more than a whole day is never admitted (no retry), and takes nothing from other limits', async () => {
      const fleet = make();
      fleet.at(EVENING);
      const daily = check(100);
      const other: LimitCheck = { subject: `key:o-${randomUUID()}`, scope: 'account', label: 'account "o"', rpm: 1 };
      const refused = refusedOf(await fleet.a.admit([other, daily], 101));
      assert.equal(refused.refused.kind, 'tpd');
      assert.equal(refused.retryAfterMs, Number.POSITIVE_INFINITY);
      // The account's one request a minute was not taken by the refused request.
      ticketOf(await fleet.b.admit([other], 0));
      assert.equal(await fleet.a.usedToday(daily), 0);
    });
  });
}

story('one process (memory)', () => {
  let now = EVENING;
  const limiter = new MemoryLimiter({ now: () => EVENING, calendar: () => now });
  return {
    a: limiter,
    b: limiter,
    at: (time) => {
      now = time;
    },
  };
});

describe('tokens_per_day through Redis', { skip: redisSkip }, () => {
  const client = createClient({ url: REDIS_URL ?? 'redis://127.0.0.1:6379' });
  const prefix = `gwtest:${process.pid}:${randomUUID()}:`;
  before(async () => {
    await client.connect();
  });
  after(async () => {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length > 0) await client.del(keys);
    client.destroy();
  });
  story('two instances (Redis)', () => {
    let now = EVENING;
    const calendar = (): number => now;
    return {
      a: new RedisLimiter(client, { prefix, calendar }),
      b: new RedisLimiter(client, { prefix, calendar }),
      at: (time) => {
        now = time;
      },
    };
  });

  it("keeps a day's count a day past the day's end, then lets Redis drop it", async () => {
    const now = EVENING;
    const limiter = new RedisLimiter(client, { prefix, calendar: () => now });
    const c: LimitCheck = { subject: `key:ttl-${randomUUID()}`, scope: 'key', label: 'key "ttl"', tpd: dailyTokens(10, 'Europe/Berlin') };
    ticketOf(await limiter.admit([c], 3));
    const keys: string[] = [];
    for await (const found of client.scanIterator({ MATCH: `${prefix}td:*${c.subject}*`, COUNT: 1000 })) keys.push(...found);
    assert.equal(keys.length, 1);
    const ttl = await client.pTTL(keys[0] as string);
    const expected = BERLIN_MIDNIGHT - EVENING + 86_400_000;
    assert.ok(ttl > expected - 60_000 && ttl <= expected, `ttl ${ttl} ms, expected about ${expected}`);
  });
});
