// usage.retention_days' pruning in the store, on SQLite and PostgreSQL: records older than the cut-off go, a batch at a
// time, oldest first; newer ones and the hourly sums stay; what the pruned records cost is kept per account, so the
// ledger's audit still balances every charge.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { auditBooks } from '../../../core/money/audit.js';
import { until } from '../../helpers/poll.js';
import { selectRows } from '../../helpers/store-rows.js';
import { openStoreAt, storeBackends } from '../../helpers/test-stores.js';
import { makeUsage, useTempStore } from './store-fixtures.js';

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000 - (1_700_000_000_000 % HOUR);

for (const backend of storeBackends()) describe(`usage pruning (${backend.name})`, { skip: backend.skip }, () => {
  const temp = useTempStore('prune.db', backend);

  it('deletes old records in batches, keeps new ones and the hourly sums, and the audit balances', async () => {
    const store = temp.get();
    await store.ledger.ensureAccounts([{ name: 'acme', description: null }, { name: 'other', description: null }], T0);
    const old = Array.from({ length: 7 }, (_, i) =>
      makeUsage({ requestId: `old-${i}`, ts: T0 + i, account: i % 2 === 0 ? 'acme' : 'other', keyId: 'k1', cost: BigInt(100 + i), priceVersion: 'v1' }),
    );
    const unmetered = makeUsage({ requestId: 'old-free', ts: T0 + 8, keyId: 'k2' });
    const recent = makeUsage({ requestId: 'new-0', ts: T0 + 2 * HOUR, account: 'acme', keyId: 'k1', cost: 1000n, priceVersion: 'v1' });
    await store.insertUsage([...old, unmetered, recent]);
    const hourlyBefore = await store.hourlyUsage({ from: T0, to: T0 + 3 * HOUR });
    assert.deepEqual(await store.ledger.auditLedger(), []);

    const cutoff = T0 + HOUR;
    assert.equal(await store.pruneUsage(cutoff, 3), 3);
    assert.deepEqual(await store.ledger.auditLedger(), [], 'balanced between two batches');
    assert.equal(await store.pruneUsage(cutoff, 3), 3);
    assert.equal(await store.pruneUsage(cutoff, 3), 2, 'the last, short batch: the pruner stops there');
    assert.equal(await store.pruneUsage(cutoff, 3), 0);

    assert.deepEqual((await store.listUsage({ limit: 100 })).map((r) => r.requestId), ['new-0']);
    assert.deepEqual(await store.hourlyUsage({ from: T0, to: T0 + 3 * HOUR }), hourlyBefore, 'the hourly sums stay');
    assert.equal(await store.hourlyCost({ from: T0, to: T0 + HOUR, account: 'acme' }), 100n + 102n + 104n + 106n);
    assert.deepEqual(await store.ledger.auditLedger(), [], 'charges = records kept + records pruned');
    // The ledger itself is untouched: balances are what they were.
    assert.equal((await store.ledger.getAccount('acme'))?.balance, -(100n + 102n + 104n + 106n + 1000n));
  });
});

// Two instances' pruners at once on PostgreSQL (READ COMMITTED): both used to select the same batch, both added its
// sums, and the second DELETE removed nothing, so the pruned sums counted it twice. A third connection holds
// usage_pruned (its sums are written last) until both pruners have taken their batch, so the two overlap for sure.
for (const backend of storeBackends().filter((b) => b.name === 'postgres')) describe('two pruners at once (postgres)', { skip: backend.skip }, () => {
  it('adds to the pruned sums only what each deleted: the totals are the records\' sums and the audit is clean', async () => {
    const db = await backend.fresh();
    const first = await openStoreAt(db.url);
    const second = await openStoreAt(db.url);
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await first.ledger.ensureAccounts([{ name: 'acme', description: null }, { name: 'other', description: null }], T0);
      const period = (account: string): string => `${account}-key@${new Date(T0 - (T0 % 86_400_000)).toISOString()}`;
      const old = Array.from({ length: 20 }, (_, i) => {
        const account = i % 2 === 0 ? 'acme' : 'other';
        const cost = BigInt(100 + i);
        return makeUsage({ requestId: `old-${i}`, ts: T0 + i, account, keyId: `${account}-key`, cost, priceVersion: 'v1', draws: [{ holdId: `h-${i}`, amount: cost, spendId: period(account) }] });
      });
      await first.insertUsage(old);
      const sumOf = (account: string): bigint => old.filter((r) => r.account === account).reduce((s, r) => s + (r.cost ?? 0n), 0n);

      const waiting = async (): Promise<number> =>
        Number((await holder.query<{ n: string }>("select count(*) as n from pg_locks where relation = 'usage_pruned'::regclass and not granted")).rows[0]?.n);
      await holder.query('begin');
      await holder.query('lock table usage_pruned in exclusive mode');
      const cutoff = T0 + HOUR;
      const one = first.pruneUsage(cutoff, 10);
      await until('the first pruner waits on usage_pruned', async () => ((await waiting()) >= 1 ? true : undefined), { timeoutMs: 10_000, intervalMs: 5 });
      const two = second.pruneUsage(cutoff, 10);
      await until('the second pruner waits on usage_pruned', async () => ((await waiting()) >= 2 ? true : undefined), { timeoutMs: 10_000, intervalMs: 5 });
      await holder.query('commit');
      const [a, b] = await Promise.all([one, two]);
      assert.equal(a + b, 20, 'two batches, each deleted once');
      while ((await first.pruneUsage(cutoff, 10)) > 0);

      assert.equal(await first.countUsage(), 0);
      const pruned = await selectRows<{ account: string; cost: string; records: number }>(db.url, 'select account, cost, records from usage_pruned order by account');
      assert.deepEqual(pruned.map((r) => [r.account, BigInt(r.cost), Number(r.records)]), [['acme', sumOf('acme'), 10], ['other', sumOf('other'), 10]]);
      const spends = await selectRows<{ spend_id: string; cost: string }>(db.url, 'select spend_id, cost from usage_pruned_spend order by spend_id');
      assert.deepEqual(spends.map((r) => [r.spend_id, BigInt(r.cost)]), [[period('acme'), sumOf('acme')], [period('other'), sumOf('other')]]);
      assert.deepEqual((await auditBooks(first, T0 + HOUR)).problems, []);
    } finally {
      await holder.end();
      await second.close();
      await first.close();
      await db.cleanup();
    }
  });
});
