// usage.retention_days' pruning in the store, on SQLite and PostgreSQL: records older than the cut-off go, a batch at a
// time, oldest first; newer ones and the hourly sums stay; what the pruned records cost is kept per account, so the
// ledger's audit still balances every charge.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storeBackends } from '../../helpers/test-stores.js';
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
