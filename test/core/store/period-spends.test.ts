// Period spend rows (core/store/period-spends.ts): which ids are a period's, what a record names, which rows the pruner
// deletes (a row with its pruned sum, a sum left behind; never a lifetime row, nor a period not yet long over), and
// migration 0028 taking the spend of rows already there as accounted for, so the audit holds from then on.

import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { auditBooks } from '../../../core/money/audit.js';
import { periodRowExpired, periodStartOf, PERIOD_ROWS_KEPT_MS } from '../../../core/store/period-spends.js';
import { encodeSpendIds } from '../../../core/store/row-codec.js';
import { runStatement, selectRows } from '../../helpers/store-rows.js';
import { openStoreAt, storeBackends } from '../../helpers/test-stores.js';

test('a period row id ends in its ISO start; any owner; anything else is a lifetime row', () => {
  assert.equal(periodStartOf('config:daily@2030-01-10T23:00:00.000Z'), Date.parse('2030-01-10T23:00:00Z'));
  assert.equal(periodStartOf('account:acme@2030-01-01T00:00:00.000Z'), Date.parse('2030-01-01T00:00:00Z'));
  for (const id of ['config:daily', 'key_abc', '@2030-01-01T00:00:00.000Z', 'k@2030-13-01T00:00:00.000Z', 'k@2030-01-01', 'k@2030-01-01T00:00:00Z']) assert.equal(periodStartOf(id), null, id);
  const start = Date.parse('2030-01-01T00:00:00Z');
  assert.equal(periodRowExpired('k@2030-01-01T00:00:00.000Z', start + PERIOD_ROWS_KEPT_MS), false);
  assert.equal(periodRowExpired('k@2030-01-01T00:00:00.000Z', start + PERIOD_ROWS_KEPT_MS + 1), true);
  assert.equal(periodRowExpired('k', Number.MAX_SAFE_INTEGER), false);
});

test("a record names the distinct period rows of its draws, sorted; none without one", () => {
  assert.equal(encodeSpendIds(undefined), null);
  assert.equal(encodeSpendIds([{ holdId: 'h1', amount: 5n }]), null);
  assert.equal(
    encodeSpendIds([
      { holdId: 'h1', amount: 5n, spendId: 'k@2030-01-01T00:00:00.000Z' },
      { holdId: 'h2', amount: 5n, spendId: 'account:a@2030-01-01T00:00:00.000Z' },
      { holdId: 'h3', amount: 5n, spendId: 'k@2030-01-01T00:00:00.000Z' },
      { holdId: 'h4', amount: 5n },
    ]),
    'account:a@2030-01-01T00:00:00.000Z k@2030-01-01T00:00:00.000Z',
  );
});

for (const backend of storeBackends()) {
  describe(`period rows on ${backend.name}`, { skip: backend.skip }, () => {
    it('prunes the rows of periods started before the cut-off with their sums, then sums left behind, a batch at a time', async () => {
      const opened = await backend.open();
      try {
        await runStatement(
          opened.url,
          "insert into key_spend (key_id, spent) values ('k', 9), ('k@2030-01-01T00:00:00.000Z', 1), ('account:a@2030-01-02T00:00:00.000Z', 2), ('k@2030-06-01T00:00:00.000Z', 3), ('odd@2030-01-01', 4)",
        );
        await runStatement(
          opened.url,
          "insert into usage_pruned_spend (spend_id, cost) values ('k@2030-01-01T00:00:00.000Z', 1), ('gone@2029-12-01T00:00:00.000Z', 5), ('k@2030-06-01T00:00:00.000Z', 3)",
        );
        const before = Date.parse('2030-03-01T00:00:00Z');
        assert.equal(await opened.store.prunePeriodRows(before, 1), 1, 'a full batch: ask again');
        while ((await opened.store.prunePeriodRows(before, 1)) === 1);
        const rows = await selectRows<{ key_id: string }>(opened.url, 'select key_id from key_spend order by key_id');
        assert.deepEqual(rows.map((r) => r.key_id), ['k', 'k@2030-06-01T00:00:00.000Z', 'odd@2030-01-01']);
        const sums = await selectRows<{ spend_id: string }>(opened.url, 'select spend_id from usage_pruned_spend order by spend_id');
        assert.deepEqual(sums.map((r) => r.spend_id), ['k@2030-06-01T00:00:00.000Z']);
      } finally {
        await opened.cleanup();
      }
    });

    it("migration 0028 takes the spend of the period rows already there as accounted for", async () => {
      const opened = await backend.open();
      try {
        // The database as it was before 0028, with a period row its records (naming none) added to.
        await runStatement(opened.url, "delete from kysely_migration where name in ('0028_period_spend_audit', '0029_key_tokens_per_period')");
        await runStatement(opened.url, 'drop table usage_pruned_spend');
        await runStatement(opened.url, 'alter table usage_records drop column spend_id');
        await runStatement(opened.url, "insert into key_spend (key_id, spent) values ('config:daily@2030-01-01T00:00:00.000Z', 7000)");
        const again = await openStoreAt(opened.url);
        try {
          assert.deepEqual((await auditBooks(again, Date.parse('2030-01-02T00:00:00Z'))).problems, []);
          const sums = await selectRows<{ spend_id: string; cost: string | number }>(opened.url, 'select spend_id, cost from usage_pruned_spend');
          assert.deepEqual(sums.map((r) => [r.spend_id, String(r.cost)]), [['config:daily@2030-01-01T00:00:00.000Z', '7000']]);
        } finally {
          await again.close();
        }
      } finally {
        await opened.cleanup();
      }
    });
  });
}
