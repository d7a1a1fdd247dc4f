// Limits in one process: a bucket of `rpm` requests that refills continuously (GCRA), tokens per minute admitted
// against an estimate and corrected to the usage, slots for requests in flight freed once per request, all the
// limits of a request checked together (one refusal takes nothing from the others), and a moved clock, not sleep.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gcra } from '../../../core/limits/gcra.js';
import type { Admission, LimitCheck, Ticket } from '../../../core/limits/limiter.js';
import { MemoryLimiter } from '../../../core/limits/memory-limiter.js';

function admitted(a: Admission): Ticket {
  assert.ok(a.admitted, `refused by ${a.admitted ? '' : `${a.refused.kind} of ${a.refused.label}`}`);
  return a.ticket;
}

describe('gcra', () => {
  it('lets the whole limit through at once, then one per interval, and says when the next fits', () => {
    const rate = { limit: 10, periodMs: 60_000 };
    let tat = 0;
    for (let i = 0; i < 10; i++) {
      const r = gcra(tat, 1000, rate, 1);
      assert.equal(r.admitted, true);
      assert.equal(r.remaining, 9 - i);
      tat = r.tat;
    }
    const refused = gcra(tat, 1000, rate, 1);
    assert.equal(refused.admitted, false);
    assert.equal(refused.retryAfterMs, 6000, 'one request refills every 6 s');
    assert.equal(refused.resetMs, 60_000, 'the whole bucket in a minute');
    assert.equal(gcra(tat, 7000, rate, 1).admitted, true);
    assert.equal(gcra(tat, 6999, rate, 1).admitted, false);
    assert.equal(gcra(0, 0, rate, 11).retryAfterMs, Number.POSITIVE_INFINITY, 'more than the limit never fits');
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
