// The ledger trace (issue 44): every charge names its first request (ledger.request_id) and every record it covers
// names the charge (charge_id), exactly, on SQLite and PostgreSQL: a batch of two accounts' records, a single request's
// charge, a batch an earlier attempt partly wrote (its charge renamed after the first record written now), and the
// attempts and error message a record keeps.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storeBackends } from '../../helpers/test-stores.js';
import { makeUsage, useTempStore } from './store-fixtures.js';

const NOW = 1_800_000_000_000;

for (const backend of storeBackends()) {
  describe(`charge links (${backend.name})`, { skip: backend.skip }, () => {
    const temp = useTempStore('charge-link.db', backend);

    async function accounts(): Promise<void> {
      await temp.get().ledger.ensureAccounts([{ name: 'acme', description: null }, { name: 'beta', description: null }], NOW);
    }

    const priced = (requestId: string, account: string, cost: bigint, ts = NOW) => makeUsage({ requestId, account, cost, priceVersion: 'v1', ts });

    it('a batch: one charge per account, named by its first request, and each record names its charge', async () => {
      await accounts();
      const store = temp.get();
      await store.insertUsage([priced('a1', 'acme', 10n), priced('b1', 'beta', 5n), priced('a2', 'acme', 7n), makeUsage({ requestId: 'free', account: 'acme' })]);
      const acme = await store.ledger.listLedger('acme', 10);
      assert.deepEqual(acme.map((e) => [e.kind, e.amount, e.requestId, e.note]), [['charge', -17n, 'a1', '2 requests']]);
      const beta = await store.ledger.listLedger('beta', 10);
      assert.deepEqual(beta.map((e) => [e.amount, e.requestId, e.note]), [[-5n, 'b1', '1 request']]);
      assert.deepEqual((await store.chargedUsage('a1', 10)).map((r) => r.record.requestId), ['a1', 'a2']);
      assert.deepEqual((await store.chargedUsage('b1', 10)).map((r) => r.record.requestId), ['b1']);
      const [free] = await store.listUsage({ requestId: 'free' });
      assert.equal(free?.chargeId, undefined, 'an uncharged record names no charge');
      const charge = await store.ledger.chargeEntry('a1');
      assert.equal(charge?.id, acme[0]?.id);
      assert.equal((await store.ledger.ledgerEntry('beta', acme[0]?.id ?? 0)), undefined, "another account's entry is not found by id");
      // Paged by row: after the first, the second.
      const first = await store.chargedUsage('a1', 1);
      assert.deepEqual((await store.chargedUsage('a1', 10, first[0]?.id)).map((r) => r.record.requestId), ['a2']);
    });

    it('a batch written again with records an earlier attempt wrote: the new charge is named after its first new record, and its records name it', async () => {
      await accounts();
      const store = temp.get();
      await store.insertUsage([priced('x1', 'acme', 3n)]);
      // x1 again (written already, charged already), then two new ones.
      await store.insertUsage([priced('x1', 'acme', 3n), priced('x2', 'acme', 4n), priced('x3', 'acme', 5n)]);
      const entries = await store.ledger.listLedger('acme', 10);
      assert.deepEqual(entries.map((e) => [e.amount, e.requestId, e.note]), [[-9n, 'x2', '2 requests'], [-3n, 'x1', '1 request']]);
      assert.deepEqual((await store.chargedUsage('x1', 10)).map((r) => r.record.requestId), ['x1']);
      assert.deepEqual((await store.chargedUsage('x2', 10)).map((r) => r.record.requestId), ['x2', 'x3']);
      assert.deepEqual(await store.ledger.auditLedger(), []);
    });

    it('keeps the attempts and the error message of a record, and none for one that has none', async () => {
      const store = temp.get();
      const attempts = [
        { channel: 'flaky', status: 503, error: 'status_503', latencyMs: 12 },
        { channel: 'up', status: 200, error: null, latencyMs: 30 },
      ];
      await store.insertUsage([makeUsage({ requestId: 'failover', attempts, errorMessage: 'nothing went wrong in the end' }), makeUsage({ requestId: 'plain' })]);
      const [failover] = await store.listUsage({ requestId: 'failover' });
      assert.deepEqual(failover?.attempts, attempts);
      assert.equal(failover?.errorMessage, 'nothing went wrong in the end');
      const [plain] = await store.listUsage({ requestId: 'plain' });
      assert.deepEqual([plain?.attempts, plain?.errorMessage], [undefined, undefined]);
    });
  });
}
