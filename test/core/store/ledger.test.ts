// The ledger on both backends: balances move only with entries and equal their sum; a posting or a charge written
// twice counts once; holds set money aside for an instance, never more than is there, shrink toward one request's
// worth near zero, and vanish with their instance; the audit finds books that do not hold.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMoney } from '../../../core/money/decimal.js';
import { openStore } from '../../../core/store/open-store.js';
import type { Budget } from '../../../core/store/ledger-store.js';
import { storeBackends } from '../../helpers/test-stores.js';
import { makeUsage, useTempStore } from './store-fixtures.js';
import { STORE_PARTS } from '../../../features/index.js';

const NOW = 1_800_000_000_000;
const acme: Budget = { kind: 'account', account: 'acme' };

for (const backend of storeBackends()) {
  describe(`ledger (${backend.name})`, { skip: backend.skip }, () => {
    const temp = useTempStore('ledger.db', backend);
    const ledger = () => temp.get().ledger;

    async function credit(amount: string, key = `credit-${amount}-${Math.random()}`): Promise<void> {
      await ledger().post({ account: 'acme', kind: 'credit', amount: parseMoney(amount), idempotencyKey: key, note: 'test', ts: NOW });
    }

    it('creates accounts once, lists them, and refuses a taken name', async () => {
      await ledger().ensureAccounts([{ name: 'acme', description: 'Acme' }, { name: 'beta', description: null }], NOW);
      await ledger().ensureAccounts([{ name: 'acme', description: 'changed' }], NOW + 1);
      assert.deepEqual(await ledger().listAccounts(), [
        { name: 'acme', description: 'Acme', balance: 0n, createdAt: NOW, disabled: false, keyGroups: [] },
        { name: 'beta', description: null, balance: 0n, createdAt: NOW, disabled: false, keyGroups: [] },
      ]);
      await assert.rejects(ledger().createAccount('beta', null, NOW), /account "beta" already exists/);
      assert.equal((await ledger().createAccount('gamma', 'g', NOW)).name, 'gamma');
      assert.equal(await ledger().getAccount('nobody'), undefined);
    });

    it('posts entries that move the balance, applies an idempotency key once, and refuses an unknown account', async () => {
      await ledger().ensureAccounts([{ name: 'acme', description: null }], NOW);
      const first = await ledger().post({ account: 'acme', kind: 'credit', amount: parseMoney('10.5'), idempotencyKey: 'k1', note: 'top-up', ts: NOW });
      assert.equal(first.applied, true);
      const again = await ledger().post({ account: 'acme', kind: 'credit', amount: parseMoney('10.5'), idempotencyKey: 'k1', note: 'top-up', ts: NOW + 5 });
      assert.equal(again.applied, false);
      assert.deepEqual(again.entry, first.entry);
      await ledger().post({ account: 'acme', kind: 'adjustment', amount: -parseMoney('0.5'), idempotencyKey: 'k2', ts: NOW });
      assert.equal((await ledger().getAccount('acme'))?.balance, parseMoney('10'));
      assert.deepEqual(
        (await ledger().listLedger('acme', 10)).map((e) => [e.kind, e.amount, e.idempotencyKey]),
        [
          ['adjustment', -parseMoney('0.5'), 'k2'],
          ['credit', parseMoney('10.5'), 'k1'],
        ],
      );
      await assert.rejects(ledger().post({ account: 'nobody', kind: 'credit', amount: 1n, idempotencyKey: 'k3', ts: NOW }), /unknown account "nobody"/);
      assert.deepEqual(await ledger().auditLedger(), []);
    });

    it('disables and enables an account, and pages its ledger by id', async () => {
      await ledger().ensureAccounts([{ name: 'acme', description: null }, { name: 'beta', description: null }], NOW);
      assert.equal((await ledger().setAccountDisabled('acme', true))?.disabled, true);
      assert.deepEqual(await ledger().disabledAccounts(), ['acme']);
      assert.equal((await ledger().getAccount('beta'))?.disabled, false);
      assert.equal((await ledger().setAccountDisabled('acme', false))?.disabled, false);
      assert.deepEqual(await ledger().disabledAccounts(), []);
      assert.equal(await ledger().setAccountDisabled('nobody', true), undefined);
      assert.deepEqual((await ledger().setAccountKeyGroups('beta', ['pro', 'cheap']))?.keyGroups, ['pro', 'cheap']);
      assert.deepEqual((await ledger().getAccount('beta'))?.keyGroups, ['pro', 'cheap']);
      for (let i = 1; i <= 5; i++) await ledger().post({ account: 'acme', kind: 'credit', amount: BigInt(i), idempotencyKey: `p${i}`, ts: NOW });
      const first = await ledger().listLedger('acme', 2);
      assert.deepEqual(first.map((e) => e.amount), [5n, 4n]);
      const second = await ledger().listLedger('acme', 2, first[1]?.id);
      assert.deepEqual(second.map((e) => e.amount), [3n, 2n]);
      const last = await ledger().listLedger('acme', 2, second[1]?.id);
      assert.deepEqual(last.map((e) => e.amount), [1n]);
    });

    it('keeps amounts past 2^53 nano-units exact', async () => {
      await ledger().ensureAccounts([{ name: 'acme', description: null }], NOW);
      const big = 2n ** 60n + 3n;
      await ledger().post({ account: 'acme', kind: 'credit', amount: big, idempotencyKey: 'big', ts: NOW });
      assert.equal((await ledger().getAccount('acme'))?.balance, big);
      assert.deepEqual(await ledger().auditLedger(), []);
    });

    it('charges a usage record once, however often its batch is written, and draws on its holds', async () => {
      await ledger().ensureAccounts([{ name: 'acme', description: null }], NOW);
      await credit('1');
      const hold = await ledger().acquireHold({ budget: acme, min: 1000n, want: 1000n, owner: 'me', now: NOW, expiresAt: NOW + 30_000 });
      assert.equal(hold.granted, true);
      const holdId = hold.granted ? hold.holdId : '';
      const charged = makeUsage({ requestId: 'r1', keyId: 'k1', cost: 700n, account: 'acme', priceVersion: 'v1', draws: [{ holdId, amount: 700n }] });
      const unmetered = makeUsage({ requestId: 'r2', keyId: 'k2', cost: 300n, priceVersion: 'v1' });
      await temp.get().insertUsage([charged, unmetered]);
      await temp.get().insertUsage([charged, unmetered]);
      assert.equal((await ledger().getAccount('acme'))?.balance, parseMoney('1') - 700n);
      assert.equal(await ledger().keySpend('k1'), 700n);
      assert.equal(await ledger().keySpend('k2'), 300n, 'an unmetered key\'s spend counts too (its max_spend)');
      const records = await temp.get().listUsage();
      assert.deepEqual(records.map((r) => r.requestId).sort(), ['r1', 'r2'], 'each priced record once');
      const r1 = records.find((r) => r.requestId === 'r1');
      assert.equal(r1?.cost, 700n);
      assert.equal(r1?.account, 'acme');
      assert.equal(r1?.priceVersion, 'v1');
      // The hold gave up what was charged: 1000 - 700 left of it.
      const next = await ledger().acquireHold({ budget: acme, min: parseMoney('1') - 700n - 300n, want: parseMoney('1'), owner: 'me', now: NOW, expiresAt: NOW + 30_000 });
      assert.equal(next.granted, true, 'all but the 300 still held is available');
      assert.deepEqual(await ledger().auditLedger(), []);
    });

    it('grants holds up to what is there, in steps of the request near zero, and refuses past it', async () => {
      await ledger().ensureAccounts([{ name: 'acme', description: null }], NOW);
      await credit('0.000001'); // 1000 nano-units
      const take = (min: bigint, want: bigint, now = NOW) => ledger().acquireHold({ budget: acme, min, want, owner: 'a', now, expiresAt: now + 30_000 });
      // A quarter of what is available, in steps of min: 1000 / 4 = 250 -> 200 in steps of 100.
      assert.deepEqual(pick(await take(100n, 10_000n)), { granted: true, amount: 200n });
      assert.deepEqual(pick(await take(100n, 50n)), { granted: true, amount: 100n }, 'never less than min');
      let granted = 300n;
      for (;;) {
        const r = await take(100n, 10_000n);
        if (!r.granted) {
          assert.equal(r.available, 1000n - granted);
          break;
        }
        granted += r.amount;
      }
      assert.equal(granted, 1000n, 'everything, and not a nano-unit more');
      assert.equal((await take(1n, 1n, NOW + 31_000)).granted, true, 'expired holds set nothing aside');
    });

    it('keeps an owner\'s holds alive while it renews them, and lets them go with it', async () => {
      await ledger().ensureAccounts([{ name: 'acme', description: null }], NOW);
      await credit('0.000001');
      const mine = await ledger().acquireHold({ budget: acme, min: 1000n, want: 1000n, owner: 'a', now: NOW, expiresAt: NOW + 1000 });
      assert.equal(mine.granted, true);
      const id = mine.granted ? mine.holdId : '';
      const renewal = await ledger().renewHolds('a', [{ id, budget: acme }], NOW, NOW + 60_000);
      assert.deepEqual(renewal.renewed, new Set([id]));
      assert.deepEqual(renewal.available, new Map([['account:acme', 0n]]), 'what the budget has left besides its holds');
      assert.deepEqual((await ledger().renewHolds('a', [{ id, budget: acme }], NOW + 61_000, NOW + 90_000)).renewed, new Set(), 'an expired hold is not renewed');
      assert.deepEqual((await ledger().renewHolds('a', [], NOW, NOW + 60_000)).renewed, new Set(), 'a hold not named is left to expire');
      await ledger().renewHolds('a', [{ id, budget: acme }], NOW, NOW + 60_000);
      assert.equal((await ledger().acquireHold({ budget: acme, min: 1n, want: 1n, owner: 'b', now: NOW + 5000, expiresAt: NOW + 6000 })).granted, false);
      await ledger().releaseHolds('a');
      assert.equal((await ledger().acquireHold({ budget: acme, min: 1000n, want: 1000n, owner: 'b', now: NOW + 5000, expiresAt: NOW + 6000 })).granted, true);
      assert.equal(await ledger().dropExpiredHolds(NOW + 7000), 1);
      if (mine.granted) await ledger().releaseHold(mine.holdId); // gone: nothing happens
    });

    it('grows a hold under the budget\'s lock and answers what the budget has left, below zero once holds pass it', async () => {
      await ledger().ensureAccounts([{ name: 'acme', description: null }], NOW);
      await credit('0.000001'); // 1000 nano-units
      const a = await ledger().acquireHold({ budget: acme, min: 100n, want: 100n, owner: 'a', now: NOW, expiresAt: NOW + 60_000 });
      const b = await ledger().acquireHold({ budget: acme, min: 500n, want: 500n, owner: 'b', now: NOW, expiresAt: NOW + 60_000 });
      assert.ok(a.granted && b.granted);
      assert.equal(await ledger().growHold(a.holdId, acme, 300n, NOW), 100n, '1000 - (400 + 500)');
      assert.equal(await ledger().growHold(a.holdId, acme, 250n, NOW), -150n, 'the holds pass the balance');
      const renewal = await ledger().renewHolds('b', [{ id: b.holdId, budget: acme }], NOW, NOW + 60_000);
      assert.equal(renewal.available.get('account:acme'), -150n, 'another owner\'s renewal learns it');
      const key: Budget = { kind: 'key', keyId: 'k-grow', maxSpend: 1000n };
      const k = await ledger().acquireHold({ budget: key, min: 200n, want: 200n, owner: 'a', now: NOW, expiresAt: NOW + 60_000 });
      assert.ok(k.granted);
      assert.equal(await ledger().growHold(k.holdId, key, 900n, NOW), -100n, 'a key\'s max_spend, less its holds');
      const both = await ledger().renewHolds('a', [{ id: a.holdId, budget: acme }, { id: k.holdId, budget: key }], NOW, NOW + 60_000);
      assert.deepEqual(both.available, new Map([['account:acme', -150n], ['key:k-grow', -100n]]), 'a renewal reads both kinds of budget');
      await ledger().releaseHold(a.holdId);
      assert.equal((await ledger().renewHolds('b', [{ id: b.holdId, budget: acme }], NOW, NOW + 60_000)).available.get('account:acme'), 500n, 'a released hold is free again');
    });

    it('holds what is left of a key\'s max_spend, less what it spent', async () => {
      const key: Budget = { kind: 'key', keyId: 'k1', maxSpend: 1000n };
      await temp.get().insertUsage([makeUsage({ requestId: 'r1', keyId: 'k1', cost: 600n })]);
      const r = await ledger().acquireHold({ budget: key, min: 500n, want: 500n, owner: 'a', now: NOW, expiresAt: NOW + 1000 });
      assert.deepEqual(pick(r), { granted: false, available: 400n });
      assert.deepEqual(pick(await ledger().acquireHold({ budget: key, min: 400n, want: 400n, owner: 'a', now: NOW, expiresAt: NOW + 1000 })), { granted: true, amount: 400n });
    });

    it('the audit finds a balance that is not its ledger\'s sum, and a charge that is not its record\'s cost nor in its spend row', async () => {
      await ledger().ensureAccounts([{ name: 'acme', description: null }], NOW);
      await credit('1');
      await temp.get().insertUsage([makeUsage({ requestId: 'r1', cost: 700n, account: 'acme' })]);
      assert.deepEqual(await ledger().auditLedger(), []);
      await ledger().post({ account: 'acme', kind: 'charge', amount: -5n, idempotencyKey: 'charge:ghost', ts: NOW });
      const problems = (await ledger().auditLedger()).map((p) => p.what);
      assert.equal(problems.length, 2, problems.join('\n'));
      assert.match(problems[0] ?? '', /account "acme": charged 705 but its usage records cost 700/);
      // Written outside a charge batch, the ghost charge is not in the account's lifetime spend row either.
      assert.match(problems[1] ?? '', /account "acme": charged 705 but its spend row account:acme says 700/);
    });

    it('never grants more than the balance to two instances racing for it', async () => {
      // Two stores on one database, each with its own connections: two gateway instances. SQLite is for one
      // instance (better-sqlite3 is synchronous: a second connection in the same process would wait for the first
      // while blocking it), so there both race through one store.
      const first = await backend.open();
      const second = backend.name === 'sqlite' ? first.store : await openStore(first.url, STORE_PARTS, { poolMax: 4 });
      try {
        await first.store.ledger.ensureAccounts([{ name: 'acme', description: null }], NOW);
        await first.store.ledger.post({ account: 'acme', kind: 'credit', amount: 50_000n, idempotencyKey: 'c', ts: NOW }); // 50 requests of 1000
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            (i % 3 === 0 ? first.store : second).ledger.acquireHold({ budget: acme, min: 1000n, want: 1000n, owner: `i${i % 3 === 0 ? 1 : 2}`, now: NOW, expiresAt: NOW + 30_000 }),
          ),
        );
        const granted = results.filter((r) => r.granted);
        assert.equal(granted.length, 50);
        assert.equal(granted.reduce((sum, r) => sum + (r.granted ? r.amount : 0n), 0n), 50_000n);
      } finally {
        if (second !== first.store) await second.close();
        await first.cleanup();
      }
    });
  });
}

function pick(r: { granted: boolean; amount?: bigint; available?: bigint }): Record<string, unknown> {
  return r.granted ? { granted: true, amount: r.amount } : { granted: false, available: r.available };
}
