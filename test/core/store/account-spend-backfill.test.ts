// Migration 0027 (issue 45) starts each account's lifetime spend row (`account:<name>` in key_spend) from the charges
// its ledger holds, so a lifetime max_spend set on an account that already spent counts what it spent. Shown on SQLite
// by taking the rows and the migration's record away and opening the store again: the migration runs once more.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { storeBackends, openStoreAt } from '../../helpers/test-stores.js';
import { makeUsage } from './store-fixtures.js';

const NOW = 1_800_000_000_000;

describe('migration 0027: account spend rows from the ledger', () => {
  it('fills account:<name> with the account\'s charges, and leaves a row already there', async () => {
    const sqlite = storeBackends().find((b) => b.name === 'sqlite');
    const db = await (sqlite ?? assert.fail('no sqlite')).fresh();
    try {
      const store = await openStoreAt(db.url);
      await store.ledger.ensureAccounts([{ name: 'acme', description: null }, { name: 'beta', description: null }, { name: 'idle', description: null }], NOW);
      await store.insertUsage([
        makeUsage({ requestId: 'a1', account: 'acme', cost: 10n, priceVersion: 'v1', ts: NOW }),
        makeUsage({ requestId: 'a2', account: 'acme', cost: 7n, priceVersion: 'v1', ts: NOW }),
        makeUsage({ requestId: 'b1', account: 'beta', cost: 5n, priceVersion: 'v1', ts: NOW }),
      ]);
      await store.ledger.post({ account: 'acme', kind: 'credit', amount: 100n, idempotencyKey: 'c1', ts: NOW });
      await store.close();

      // As a database migrated before 0027: no account rows (beta's kept at a value of its own, to be left alone).
      const file = new Database(db.url.slice('sqlite:'.length));
      file.prepare("DELETE FROM key_spend WHERE key_id = 'account:acme'").run();
      file.prepare("UPDATE key_spend SET spent = 99 WHERE key_id = 'account:beta'").run();
      // 0028 and 0029 after it run again too (Kysely keeps the history in order); they are idempotent, and 0028 finds no period row.
      file.prepare("DELETE FROM kysely_migration WHERE name IN ('0027_account_max_spend', '0028_period_spend_audit', '0029_key_tokens_per_period')").run();
      file.close();

      const again = await openStoreAt(db.url);
      try {
        const spends = await again.ledger.keySpends(['account:acme', 'account:beta', 'account:idle']);
        assert.equal(spends.get('account:acme'), 17n, 'its charges, not its credit');
        assert.equal(spends.get('account:beta'), 99n, 'a row already there is left as it is');
        assert.equal(spends.has('account:idle'), false, 'an account never charged has no row yet');
      } finally {
        await again.close();
      }
    } finally {
      await db.cleanup();
    }
  });
});
