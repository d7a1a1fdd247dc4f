// An account's max_spend (issue 45) in the store, on SQLite and PostgreSQL: every charge of an account adds to its
// lifetime spend row (`account:<name>` in key_spend), in the records' transaction, as a key's charges add to its own;
// a draw naming a period's row adds to that one too; and a hold on the account's cap is granted against the cap less
// the row less what is held, so the last request's worth goes to one caller only.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Budget } from '../../../core/store/ledger-store.js';
import { storeBackends } from '../../helpers/test-stores.js';
import { makeUsage, useTempStore } from './store-fixtures.js';

const NOW = 1_800_000_000_000;

for (const backend of storeBackends()) {
  describe(`account spend rows (${backend.name})`, { skip: backend.skip }, () => {
    const temp = useTempStore('account-spend-row.db', backend);

    it('adds each charge to the account\'s row, and a period draw to its period row', async () => {
      const store = temp.get();
      await store.ledger.ensureAccounts([{ name: 'acme', description: null }, { name: 'beta', description: null }], NOW);
      const hold = await store.ledger.acquireHold({ budget: { kind: 'key', keyId: 'account:acme', account: 'acme', maxSpend: 100n, spendId: 'account:acme@P' }, min: 10n, want: 10n, owner: 'o', now: NOW, expiresAt: NOW + 60_000 });
      assert.equal(hold.granted, true);
      const holdId = hold.granted ? hold.holdId : '';
      await store.insertUsage([
        makeUsage({ requestId: 'a1', keyId: 'k1', account: 'acme', cost: 10n, priceVersion: 'v1', ts: NOW, draws: [{ holdId, amount: 10n, spendId: 'account:acme@P' }] }),
        makeUsage({ requestId: 'a2', keyId: 'k2', account: 'acme', cost: 7n, priceVersion: 'v1', ts: NOW }),
        makeUsage({ requestId: 'b1', keyId: 'k3', account: 'beta', cost: 5n, priceVersion: 'v1', ts: NOW }),
        makeUsage({ requestId: 'free', keyId: 'k4', cost: 9n, priceVersion: 'v1', ts: NOW }),
      ]);
      const spends = await store.ledger.keySpends(['account:acme', 'account:beta', 'account:acme@P', 'k1', 'k4']);
      assert.equal(spends.get('account:acme'), 17n);
      assert.equal(spends.get('account:beta'), 5n);
      assert.equal(spends.get('account:acme@P'), 10n);
      assert.equal(spends.get('k1'), 10n, "the key's own row too");
      assert.equal(spends.get('k4'), 9n);
      assert.equal(spends.has('account:undefined'), false, 'a record of no account adds to no account row');
    });

    it('grants a hold on the account\'s cap against the cap less its row less what is held', async () => {
      const store = temp.get();
      await store.ledger.ensureAccounts([{ name: 'acme', description: null }], NOW);
      await store.insertUsage([makeUsage({ requestId: 'a1', account: 'acme', cost: 80n, priceVersion: 'v1', ts: NOW })]);
      const cap: Budget = { kind: 'key', keyId: 'account:acme', account: 'acme', maxSpend: 100n };
      const ask = (owner: string) => store.ledger.acquireHold({ budget: cap, min: 15n, want: 15n, owner, now: NOW, expiresAt: NOW + 60_000 });
      assert.equal((await ask('a')).granted, true, '20 left covers 15');
      const second = await ask('b');
      assert.deepEqual(second, { granted: false, available: 5n });
    });
  });
}
