// Limits in one process: a bucket of `rpm` requests that refills continuously (GCRA), tokens per minute admitted
// against an estimate and corrected to the usage, slots for requests in flight freed once per request, all the
// limits of a request checked together (one refusal takes nothing from the others), and a moved clock, not sleep.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { corrected, take, type Bucket, type BucketResult } from '../../../core/limits/bucket.js';
import type { Admission, LimitCheck, Ticket } from '../../../core/limits/limiter.js';
import { MemoryLimiter } from '../../../core/limits/memory-limiter.js';

function admitted(a: Admission): Ticket {
  assert.ok(a.admitted, `refused by ${a.admitted ? '' : `${a.refused.kind} of ${a.refused.label}`}`);
  return a.ticket;
}

describe('bucket', () => {
  const NOW = 1_764_150_000_000;
  it('lets the whole limit through at once, then one per interval, and says when the next fits', () => {
    const rate = { limit: 10, periodMs: 60_000 };
    let bucket: Bucket | undefined;
    for (let i = 0; i < 10; i++) {
      const r = take(bucket, NOW, rate, 1);
      assert.equal(r.admitted, true);
      assert.equal(r.remaining, 9 - i);
      bucket = r.bucket;
    }
    const refused = take(bucket, NOW, rate, 1);
    assert.equal(refused.admitted, false);
    assert.equal(refused.retryAfterMs, 6000, 'one request refills every 6 s');
    assert.equal(refused.resetMs, 60_000, 'the whole bucket in a minute');
    assert.equal(take(bucket, NOW + 6000, rate, 1).admitted, true);
    assert.equal(take(bucket, NOW + 5999, rate, 1).admitted, false);
    assert.equal(take(undefined, NOW, rate, 11).retryAfterMs, Number.POSITIVE_INFINITY, 'more than the limit never fits');
  });

  it('admits exactly the limit at any limit and clock (no rounding lost the last request of a burst)', () => {
    for (const limit of [1, 7, 9, 11, 13, 14, 17, 18, 19, 26, 60, 97, 1000, 12_345, 1_000_000_000]) {
      for (const now of [1_000_000, NOW, NOW + 123_457]) {
        const rate = { limit, periodMs: 60_000 };
        let bucket: Bucket | undefined;
        const burst = Math.min(limit, 50);
        let last: BucketResult | undefined;
        for (let i = 0; i < burst; i++) {
          last = take(bucket, now, rate, 1);
          assert.equal(last.admitted, true, `rpm ${limit} at ${now}: request ${i + 1}`);
          bucket = last.bucket;
        }
        assert.equal(last?.remaining, limit - burst, `rpm ${limit}: remaining after ${burst}`);
        if (burst === limit) assert.equal(take(bucket, now, rate, 1).admitted, false, `rpm ${limit}: one more`);
      }
    }
  });

  it('keeps a correction made after a long stream: the tokens used beyond the estimate are a debt', () => {
    const rate = { limit: 100_000, periodMs: 60_000 };
    const admitted = take(undefined, NOW, rate, 300);
    // 20 s later the stream ends having used 2000 tokens: 1700 more than admitted.
    const after = corrected(admitted.bucket, NOW + 20_000, rate, 1700);
    // The 300 taken at admission refilled in those 20 s; the 1700 beyond them count from now (before the fix they
    // were added to a time already past, and vanished).
    assert.equal(take(after, NOW + 20_000, rate, 0).remainingBefore, 100_000 - 1700);
    const small = corrected(take(undefined, NOW, { limit: 1000, periodMs: 60_000 }, 300).bucket, NOW + 1000, { limit: 1000, periodMs: 60_000 }, 5000);
    assert.ok(small.level < 0, 'more than the whole limit used: a debt the refill pays first');
    assert.equal(take(small, NOW + 1000, { limit: 1000, periodMs: 60_000 }, 1).admitted, false);
  });
});

describe('MemoryLimiter', () => {
  const key = (extra: Partial<LimitCheck>): LimitCheck => ({ subject: 'key:k1', scope: 'key', label: 'ci', ...extra });

  it('admits exactly rpm of many quick requests, and again once the bucket refills', () => {
    let clock = 1_000_000;
    const limiter = new MemoryLimiter({ now: () => clock });
    const answers = Array.from({ length: 25 }, () => limiter.admit([key({ rpm: 10 })], 0));
    assert.equal(answers.filter((a) => a.admitted).length, 10);
    const refusal = answers[10] as Admission;
    assert.ok(!refusal.admitted);
    assert.deepEqual([refusal.refused.kind, refusal.refused.limit, refusal.refused.remaining], ['rpm', 10, 0]);
    assert.equal(refusal.retryAfterMs, 6000);
    clock += 60_000;
    assert.equal(Array.from({ length: 12 }, () => limiter.admit([key({ rpm: 10 })], 0)).filter((a) => a.admitted).length, 10);
  });

  it('counts tokens against their estimate and corrects them to the usage at the end', () => {
    const clock = 1_000_000;
    const limiter = new MemoryLimiter({ now: () => clock });
    const check = key({ tpm: 1000 });
    const first = admitted(limiter.admit([check], 300));
    admitted(limiter.admit([check], 300));
    admitted(limiter.admit([check], 300));
    const fourth = limiter.admit([check], 300);
    assert.ok(!fourth.admitted, 'the fourth of ~300 tokens passes 1000');
    assert.equal(fourth.refused.kind, 'tpm');
    assert.equal(fourth.requested, 300);
    // The first used 50, not 300: 250 come back, and the fourth fits.
    limiter.finish(first, 50);
    admitted(limiter.admit([check], 300));
    const tooLarge = limiter.admit([check], 1001);
    assert.ok(!tooLarge.admitted);
    assert.equal(tooLarge.retryAfterMs, Number.POSITIVE_INFINITY);
  });

  it('holds a slot per request in flight and frees it once, at its end', () => {
    const limiter = new MemoryLimiter();
    const check = key({ concurrency: 2 });
    const a = admitted(limiter.admit([check], 0));
    admitted(limiter.admit([check], 0));
    assert.equal(limiter.inFlight('key:k1'), 2);
    const third = limiter.admit([check], 0);
    assert.ok(!third.admitted);
    assert.equal(third.refused.kind, 'concurrency');
    limiter.finish(a, null);
    assert.equal(limiter.inFlight('key:k1'), 1);
    admitted(limiter.admit([check], 0));
    assert.equal(limiter.inFlight('key:k1'), 2);
  });

  it('keeps the state of a request still open through a sweep, so its end corrects its tokens', () => {
    let clock = 2_000_000_000;
    const limiter = new MemoryLimiter({ now: () => clock });
    const check = key({ tpm: 1000 });
    const long = admitted(limiter.admit([check], 100));
    clock += 11_000; // past a sweep, with the bucket full again
    admitted(limiter.admit([{ subject: 'key:other', scope: 'key', label: 'other', rpm: 5 }], 0));
    limiter.finish(long, 900);
    const next = limiter.admit([check], 0);
    assert.equal(next.states[0]?.remaining, 200, 'full, less the 800 used beyond the estimate');
  });

  it('a refusal shows every count as it stands, not less the request it refused', () => {
    const limiter = new MemoryLimiter({ now: () => 3_000_000_000 });
    const keyLimits = key({ rpm: 5 });
    const account: LimitCheck = { subject: 'account:a', scope: 'account', label: 'a', rpm: 1 };
    admitted(limiter.admit([keyLimits, account], 0));
    const refused = limiter.admit([keyLimits, account], 0);
    assert.ok(!refused.admitted);
    assert.equal(refused.refused.scope, 'account');
    assert.equal(refused.states.find((s) => s.scope === 'key')?.remaining, 4);
  });

  it('checks every limit of a request together: one refusal takes nothing from the others', () => {
    const limiter = new MemoryLimiter({ now: () => 5_000_000 });
    const account: LimitCheck = { subject: 'account:acme', scope: 'account', label: 'acme', rpm: 100, concurrency: 10 };
    const keyLimits = key({ rpm: 1 });
    admitted(limiter.admit([keyLimits, account], 0));
    const refused = limiter.admit([keyLimits, account], 0);
    assert.ok(!refused.admitted);
    assert.equal(refused.refused.scope, 'key');
    assert.equal(limiter.inFlight('account:acme'), 1, 'the refused request holds no account slot');
    // The account's bucket lost one request (the admitted one), not two.
    const other = limiter.admit([{ ...keyLimits, subject: 'key:k2' }, account], 0);
    assert.ok(other.admitted);
    const accountState = other.states.find((s) => s.scope === 'account' && s.kind === 'rpm');
    assert.equal(accountState?.remaining, 98);
  });
});
