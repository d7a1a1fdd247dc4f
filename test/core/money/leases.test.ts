// Leases against a real store (SQLite): admissions in memory while a hold covers them, one store round trip for many
// concurrent requests, refusals that take nothing, settlements that draw all a request cost (an overrun held at once),
// idle money given back, and no admission on a hold that its instance could no longer be sure of (expired, or not
// renewed in time).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BudgetRefused, Leases, type Reservation } from '../../../core/money/leases.js';
import type { Budget, HoldRequest, LedgerStore } from '../../../core/store/ledger-store.js';
import { makeUsage, useTempStore } from '../store/store-fixtures.js';

const acme: Budget = { kind: 'account', account: 'acme' };
const TTL = 30_000;

/** The store's ledger, counting acquisitions. */
function counting(ledger: LedgerStore): { ledger: LedgerStore; acquisitions: () => number } {
  let n = 0;
  const proxy = Object.create(ledger) as LedgerStore & { acquireHold(r: HoldRequest): ReturnType<LedgerStore['acquireHold']> };
  proxy.acquireHold = (request) => {
    n++;
    return ledger.acquireHold(request);
  };
  return { ledger: proxy, acquisitions: () => n };
}

describe('Leases', () => {
  const temp = useTempStore('leases.db');
  let clock = 1_800_000_000_000;
  const now = (): number => clock;

  async function funded(amount: bigint): Promise<void> {
    await temp.get().ledger.ensureAccounts([{ name: 'acme', description: null }], clock);
    await temp.get().ledger.post({ account: 'acme', kind: 'credit', amount, idempotencyKey: `c${amount}`, ts: clock });
  }

  it('admits in memory once a hold covers the request, after one round trip for many concurrent requests', async () => {
    await funded(10_000_000n);
    const { ledger, acquisitions } = counting(temp.get().ledger);
    const leases = new Leases(ledger, { holdTtlMs: TTL, now });
    const all = await Promise.all(Array.from({ length: 100 }, () => leases.reserve([acme], 100n)));
    assert.equal(acquisitions(), 1, 'the others waited for the first acquisition');
    assert.equal(all.length, 100);
    const next = leases.reserve([acme], 100n);
    assert.ok(!(next instanceof Promise), 'admitted at once');
  });

  it('refuses what the store cannot cover, taking nothing from the other budget', async () => {
    await funded(1000n);
    const leases = new Leases(temp.get().ledger, { holdTtlMs: TTL, now });
    const key: Budget = { kind: 'key', keyId: 'k1', maxSpend: 10_000n };
    const kept = await leases.reserve([key, acme], 1000n);
    await assert.rejects(Promise.resolve(leases.reserve([key, acme], 1000n)), (err: unknown) => err instanceof BudgetRefused && err.budget.kind === 'account');
    // The key's hold gave back what the refused request had taken: another 1000 of it is still free locally.
    leases.settle(kept, 0n);
    const again = leases.reserve([key], 1000n);
    assert.ok(!(again instanceof Promise));
  });

  it('draws an overrun in full at once: the hold grows in the store by what it did not have free, and nothing more is admitted', async () => {
    await funded(4000n);
    const grown: Promise<bigint>[] = [];
    const ledger = Object.create(temp.get().ledger) as LedgerStore;
    ledger.growHold = (holdId, budget, amount, at) => {
      const done = temp.get().ledger.growHold(holdId, budget, amount, at);
      grown.push(done);
      return done;
    };
    const leases = new Leases(ledger, { holdTtlMs: TTL, now });
    const r = await leases.reserve([acme], 1000n);
    const draws = leases.settle(r, 5000n);
    assert.deepEqual(
      draws.map((d) => d.amount),
      [5000n],
      'an overrun is drawn in full from the hold it was admitted on',
    );
    assert.equal(grown.length, 1, 'the hold (a quarter of 4000 = 1000) had 1000 free: the 4000 past it is held in the store at once');
    await Promise.all(grown);
    const probe = (min: bigint) => temp.get().ledger.acquireHold({ budget: acme, min, want: min, owner: 'other', now: clock, expiresAt: clock + TTL });
    assert.equal((await probe(1n)).granted, false, 'another instance finds nothing left before the record is written');
    await assert.rejects(Promise.resolve(leases.reserve([acme], 1n)), BudgetRefused, 'nor does this one');
    // The record is written with its draw: the balance is -1000, and the hold is spent.
    const record = makeUsage({ requestId: 'r-over', cost: 5000n, account: 'acme', priceVersion: 'v1', draws });
    await temp.get().insertUsage([record]);
    leases.written([record]);
    assert.equal((await temp.get().ledger.getAccount('acme'))?.balance, -1000n);
    assert.equal((await probe(1n)).granted, false, 'a balance below zero admits nothing');
    assert.deepEqual(await temp.get().ledger.auditLedger(), []);
  });

  it('draws an overrun from what its hold has free first, growing nothing', async () => {
    await funded(40_000n);
    const leases = new Leases(temp.get().ledger, { holdTtlMs: TTL, now });
    // A hold of a quarter of 40,000: 10,000, of which 1000 reserved.
    const r = await leases.reserve([acme], 1000n);
    assert.deepEqual(leases.settle(r, 6000n).map((d) => d.amount), [6000n]);
    // 4000 free on the hold now: a request of 4000 is admitted at once, one more of 1 is not.
    assert.ok(!(leases.reserve([acme], 4000n) instanceof Promise), 'what the overrun left is admitted in memory');
    const next = leases.reserve([acme], 1n);
    assert.ok(next instanceof Promise, 'the hold has nothing free: the store is asked');
    await next;
  });

  it('an overrun that takes the budget below zero stops every hold of it: at once where it happened, at the next renewal elsewhere', async () => {
    await funded(40_000n);
    const a = new Leases(temp.get().ledger, { holdTtlMs: TTL, now });
    const b = new Leases(temp.get().ledger, { holdTtlMs: TTL, now });
    // A holds a quarter of 40,000 (10,000); B a quarter of the 30,000 left, in whole requests (7,000).
    a.settle(await a.reserve([acme], 1000n), 0n);
    const rb = await b.reserve([acme], 1000n);
    // B's request costs 50,000: 7,000 from its hold, 43,000 grown in the store; the holds (10,000 + 50,000) pass the
    // balance. Until the store answers, B admits nothing from memory; then nothing at all.
    b.settle(rb, 50_000n);
    const during = b.reserve([acme], 1n);
    assert.ok(during instanceof Promise, 'not admitted from memory while the growth is under way');
    await assert.rejects(Promise.resolve(during), BudgetRefused);
    // A has not heard yet: its hold still admits from memory, for one renewal at most.
    const ra = a.reserve([acme], 1000n);
    assert.ok(!(ra instanceof Promise), 'admitted on what A holds, before its renewal');
    await a.tick();
    const next = a.reserve([acme], 1000n);
    assert.ok(next instanceof Promise, 'after its renewal, A admits nothing from memory');
    await assert.rejects(Promise.resolve(next), BudgetRefused, 'and the store refuses');
    // The request A admitted before it heard still settles; its hold, stopped, goes back as soon as it is idle.
    const draws = a.settle(ra, 1000n);
    assert.deepEqual(draws.map((d) => d.amount), [1000n]);
    const record = makeUsage({ requestId: 'r-a', cost: 1000n, account: 'acme', priceVersion: 'v1', draws });
    await temp.get().insertUsage([record]);
    a.written([record]);
    await a.tick();
    const left = await temp.get().ledger.renewHolds('nobody', [{ id: 'none', budget: acme }], clock, clock + TTL);
    assert.equal(left.available.get('account:acme'), 39_000n - 50_000n, 'only B\'s hold (its 50,000 not yet written) is held now');
  });

  it('while an overrun grows, no hold of its budget admits from memory; below zero, every one stops and its free money is back before anyone asks the store', async () => {
    await funded(40_000n);
    const events: string[] = [];
    const ledger = Object.create(temp.get().ledger) as LedgerStore;
    ledger.shrinkHold = async (id, amount) => {
      await temp.get().ledger.shrinkHold(id, amount);
      events.push(`shrink ${amount}`);
    };
    ledger.acquireHold = (request) => {
      events.push('acquire');
      return temp.get().ledger.acquireHold(request);
    };
    const leases = new Leases(ledger, { holdTtlMs: TTL, now });
    // Two holds on this instance: H1 (a quarter of 40,000) with all of it free, H2 one request's worth.
    const r1 = await leases.reserve([acme], 1000n);
    const r2 = await leases.reserve([acme], 9500n);
    assert.notEqual(r1.parts[0], r2.parts[0], 'two holds');
    leases.settle(r1, 0n);
    events.length = 0;
    // H2's request costs 32,000: the holds (10,000 + 32,000) pass the balance.
    leases.settle(r2, 32_000n);
    const during = leases.reserve([acme], 1000n);
    assert.ok(during instanceof Promise, 'H1 has 10,000 free, and still admits nothing from memory while the growth is under way');
    const admitted = await during;
    assert.notEqual(admitted.parts[0], r1.parts[0], 'H1 stopped');
    assert.deepEqual(events, ['shrink 10000', 'acquire'], 'H1\'s money went back before the waiting request asked the store, which then had 8,000');
  });

  it('a stopped hold gives back what each request ending on it did not spend, at once', async () => {
    await funded(40_000n);
    const a = new Leases(temp.get().ledger, { holdTtlMs: TTL, now });
    const b = new Leases(temp.get().ledger, { holdTtlMs: TTL, now });
    // A: 10 requests of 1000 on a hold of 10,000 (all of it reserved); B's one request costs 32,000.
    const ra = await Promise.all(Array.from({ length: 10 }, () => a.reserve([acme], 1000n)));
    const drawsB = b.settle(await b.reserve([acme], 1000n), 32_000n);
    await assert.rejects(Promise.resolve(b.reserve([acme], 1n)), BudgetRefused, 'B heard from its growth: below zero');
    const recordB = makeUsage({ requestId: 'rb', cost: 32_000n, account: 'acme', priceVersion: 'v1', draws: drawsB });
    await temp.get().insertUsage([recordB]);
    b.written([recordB]);
    await a.tick();
    // Nine of A's requests end at 100 each; one (a long stream) is still in flight.
    const records = ra.slice(0, 9).map((r, i) => makeUsage({ requestId: `ra${i}`, cost: 100n, account: 'acme', priceVersion: 'v1', draws: a.settle(r, 100n) }));
    await temp.get().insertUsage(records);
    a.written(records);
    // Balance 40,000 - 32,000 - 900 = 7,100, of which 1000 is in flight: a request of 1000 is admitted.
    const next = await a.reserve([acme], 1000n);
    assert.equal(next.amount, 1000n);
  });

  it('keeps a hold in the store while requests are in flight on it, even when a record written before its growth emptied it', async () => {
    await funded(40_000n);
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const grown: Promise<bigint>[] = [];
    const ledger = Object.create(temp.get().ledger) as LedgerStore;
    ledger.growHold = (id, budget, amount, at) => {
      const done = gate.then(() => temp.get().ledger.growHold(id, budget, amount, at));
      grown.push(done);
      return done;
    };
    const leases = new Leases(ledger, { holdTtlMs: TTL, now });
    const all = await Promise.all(Array.from({ length: 10 }, () => leases.reserve([acme], 1000n)));
    const draws = leases.settle(all[0] as Reservation, 30_000n);
    const record = makeUsage({ requestId: 'r0', cost: 30_000n, account: 'acme', priceVersion: 'v1', draws });
    await temp.get().insertUsage([record]);
    leases.written([record]);
    // The record's draw (30,000) emptied the hold's row (10,000) before its growth landed; the renewal keeps it.
    const holdId = (all[1] as Reservation).parts[0]?.id ?? '';
    const renewed = await temp.get().ledger.renewHolds(leases.owner, [{ id: holdId, budget: acme }], clock, clock + TTL);
    assert.ok(renewed.renewed.has(holdId), 'the row is still there');
    release();
    await Promise.all(grown);
    // Balance 10,000; the 9,000 still in flight are set aside (the late growth errs toward holding more).
    assert.equal((await temp.get().ledger.acquireHold({ budget: acme, min: 1001n, want: 1001n, owner: 'other', now: clock, expiresAt: clock + TTL })).granted, false);
  });

  it('keeps and renews a hold whose charges are not written yet, so their money is not free twice; gives it back once they are', async () => {
    await funded(4000n);
    const leases = new Leases(temp.get().ledger, { holdTtlMs: TTL, now });
    const r = await leases.reserve([acme], 1000n);
    const draws = leases.settle(r, 400n);
    const probe = (min: bigint) => temp.get().ledger.acquireHold({ budget: acme, min, want: min, owner: 'other', now: clock, expiresAt: clock + TTL });
    // The usage writer is failing: the record with the 400 charge waits. Idle, then past the timeout, with another
    // instance dropping what expired: the hold is still there, renewed, with all 1000 of it.
    for (let t = 0; t < 4; t++) {
      clock += 10_000;
      await leases.tick();
    }
    await temp.get().ledger.dropExpiredHolds(clock);
    assert.equal((await probe(3001n)).granted, false, 'the 400 charged and not yet written is not free again');
    // The record is written (its draw with it) and the leases are told: the rest goes back once idle.
    const record = makeUsage({ requestId: 'r-kept', cost: 400n, account: 'acme', priceVersion: 'v1', draws });
    await temp.get().insertUsage([record]);
    leases.written([record]);
    clock += 3000;
    await leases.tick();
    assert.equal((await probe(3600n)).granted, true, 'balance 3600, nothing held');
    assert.deepEqual(await temp.get().ledger.auditLedger(), []);
  });

  it('admits nothing on a hold it could not renew in time, and forgets one the store dropped', async () => {
    await funded(1_000_000n);
    const leases = new Leases(temp.get().ledger, { holdTtlMs: TTL, now });
    await leases.reserve([acme], 100n);
    const { ledger, acquisitions } = counting(temp.get().ledger);
    const watched = new Leases(ledger, { holdTtlMs: TTL, now });
    await watched.reserve([acme], 100n);
    assert.equal(acquisitions(), 1);
    // No renewal for longer than two thirds of the timeout: the next request goes to the store.
    clock += 21_000;
    const late = watched.reserve([acme], 100n);
    assert.ok(late instanceof Promise, 'not admitted on an unconfirmed hold');
    await late;
    assert.equal(acquisitions(), 2);
    // Past the timeout another instance drops it; the next renewal finds it gone.
    clock += 40_000;
    await temp.get().ledger.dropExpiredHolds(clock);
    await watched.tick();
    const after = watched.reserve([acme], 100n);
    assert.ok(after instanceof Promise, 'the dropped hold admits nothing');
    await after;
    assert.equal(acquisitions(), 3);
  });
});
