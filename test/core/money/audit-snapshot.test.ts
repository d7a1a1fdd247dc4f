// The audit reads the books from one snapshot (Store.readBooks): a charge batch committing while it runs is wholly
// seen or not at all. Before, each table was read by its own query, and a charge committed between the ledger's read
// and the usage records' read made a correct account look wrong ("charged X but its usage records cost X + c").

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { auditBooks } from '../../../core/money/audit.js';
import { callCost } from '../../../core/money/price.js';
import { pricingFromDocument } from '../../../core/money/pricing.js';
import { KyselyLedger } from '../../../core/store/kysely-ledger.js';
import type { Database } from '../../../core/store/schema.js';
import type { Store, UsageRecord } from '../../../core/store/store.js';
import { until } from '../../helpers/poll.js';
import { openStoreAt, storeBackends } from '../../helpers/test-stores.js';
import { makeUsage } from '../store/store-fixtures.js';

const T0 = 1_800_000_000_000;
/** A flat-priced call: its records' cost is what the audit computes again. */
const DOCUMENT = JSON.stringify({ models: [], calls: [['op', '0.0002']], multipliers: [] });
const PRICING = pricingFromDocument(DOCUMENT);
const COST = callCost(PRICING.callPrice('op') ?? 0n, PRICING.multiplierOf('default'));
const DAY = new Date(T0 - (T0 % 86_400_000)).toISOString();

function charged(i: number): UsageRecord {
  return makeUsage({
    requestId: `r-${i}`,
    ts: T0 + i,
    model: 'op',
    account: 'acme',
    keyId: 'k1',
    cost: COST,
    priceVersion: PRICING.version,
    draws: [{ holdId: `h-${i}`, amount: COST, spendId: `k1@${DAY}` }],
  });
}

async function books(store: Store): Promise<void> {
  await store.ledger.ensureAccounts([{ name: 'acme', description: null }], T0);
  await store.ledger.savePriceVersion(PRICING.version, DOCUMENT, T0);
  await store.insertUsage([charged(0), charged(1)]);
}

for (const backend of storeBackends()) {
  describe(`the books read from one snapshot (${backend.name})`, { skip: backend.skip }, () => {
    it('a charge committed by another connection between two reads of readBooks is seen by none of them', async () => {
      const db = await backend.fresh();
      const first = await openStoreAt(db.url);
      // SQLite: a second connection to the same file (WAL: it writes while the first one's read transaction is open).
      const second = await openStoreAt(db.url);
      try {
        await books(first);
        const seen = await first.readBooks(async (view) => {
          const ledgerProblems = await view.ledger.auditLedger();
          await second.insertUsage([charged(2)]);
          const priced = await view.pricedUsage(0, 100);
          const spends = await view.periodSpends();
          const accounts = await view.ledger.listAccounts();
          return { ledgerProblems, priced: priced.length, row: spends.rows.get(`k1@${DAY}`), balance: accounts[0]?.balance };
        });
        assert.deepEqual(seen, { ledgerProblems: [], priced: 2, row: 2n * COST, balance: -2n * COST });
        // Outside, the charge is there, and the books hold.
        const report = await auditBooks(first, T0);
        assert.equal(report.pricedRecords, 3);
        assert.deepEqual(report.problems, []);
      } finally {
        await second.close();
        await first.close();
        await db.cleanup();
      }
    });
  });
}

// The audit itself, with a charge committing in the middle of it: a third connection holds usage_records (ACCESS
// EXCLUSIVE) so the audit waits at its first read of the records, after it read the ledger; that connection then
// writes a charge batch (records, ledger entry, balance, spend rows) and commits.
for (const backend of storeBackends().filter((b) => b.name === 'postgres')) {
  describe('the audit with a charge committing in its middle (postgres)', { skip: backend.skip }, () => {
    it('reports the books as they were when it began: no mismatch, the records of then', async () => {
      const db = await backend.fresh();
      const store = await openStoreAt(db.url);
      const writer = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: db.url, max: 2 }) }) });
      try {
        await books(store);
        const trx = await writer.startTransaction().execute();
        let audit: ReturnType<typeof auditBooks> | undefined;
        try {
          await sql`lock table usage_records in access exclusive mode`.execute(trx);
          audit = auditBooks(store, T0);
          await until(
            'the audit waits on usage_records',
            async () => {
              const { rows } = await sql<{ n: string }>`select count(*) as n from pg_locks where relation = 'usage_records'::regclass and not granted`.execute(writer);
              return Number(rows[0]?.n) >= 1 ? true : undefined;
            },
            { timeoutMs: 10_000, intervalMs: 5 },
          );
          await new KyselyLedger(trx, 'postgres').writePriced(trx, [charged(2)], new Set());
          await trx.commit().execute();
        } catch (err) {
          await trx.rollback().execute();
          throw err;
        }
        const report = await audit;
        assert.deepEqual(report.problems, [], 'the charge is wholly out of what the audit read');
        assert.equal(report.pricedRecords, 2);
        const after = await auditBooks(store, T0);
        assert.deepEqual(after.problems, []);
        assert.equal(after.pricedRecords, 3);
      } finally {
        await writer.destroy();
        await store.close();
        await db.cleanup();
      }
    });
  });
}
