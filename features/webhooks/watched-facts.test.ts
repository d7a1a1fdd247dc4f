// budget_reached's key query (watched-facts.ts keysAtCap) on SQLite and PostgreSQL: a run-time key whose lifetime
// spend passed its lifetime max_spend is found; one whose max_spend is per period is not (the row it compares is the
// lifetime spend, not the period's: issue 45's run-time period caps). The caps per period and the accounts' caps the
// scan compares with their current period's row (budget-scan.ts): the keys with a cap per period, the enabled accounts
// with a cap set at run time or named by gateway.yaml.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeUsage } from '../../test/core/store/store-fixtures.js';
import { storeBackends } from '../../test/helpers/test-stores.js';
import { WEBHOOK_STORE } from './store-part.js';

const NOW = 1_800_000_000_000;

for (const backend of storeBackends()) {
  describe(`keys at their cap (${backend.name})`, { skip: backend.skip }, () => {
    it('finds a lifetime cap passed, not a cap per period', async () => {
      const opened = await backend.open();
      try {
        const { store } = opened;
        const key = (id: string, spendPeriod?: { unit: 'day'; timezone: string }) =>
          store.createKey(Object.assign({ id, name: id, group: 'default', prefix: 'sk-x', hash: id.padEnd(64, '0'), createdAt: NOW, maxSpend: 10n }, spendPeriod === undefined ? {} : { spendPeriod }));
        await key('lifetime');
        await key('daily', { unit: 'day', timezone: 'UTC' });
        await store.insertUsage([
          makeUsage({ requestId: 'r1', keyId: 'lifetime', cost: 12n, priceVersion: 'v1', ts: NOW }),
          makeUsage({ requestId: 'r2', keyId: 'daily', cost: 12n, priceVersion: 'v1', ts: NOW }),
        ]);
        const { facts } = store.part(WEBHOOK_STORE);
        const capped = await facts.keysAtCap();
        assert.deepEqual(capped.map((k) => k.id), ['lifetime']);
        assert.deepEqual(await facts.keysCappedPerPeriod(), [{ id: 'daily', name: 'daily', account: null, maxSpend: 10n, spendPeriod: { unit: 'day', timezone: 'UTC' } }]);
        await store.revokeKey('daily', NOW);
        assert.deepEqual(await facts.keysCappedPerPeriod(), [], 'a revoked key is not told');
      } finally {
        await opened.cleanup();
      }
    });

    it("lists the enabled accounts with a cap set at run time, and those gateway.yaml names (whose cap is the file's)", async () => {
      const opened = await backend.open();
      try {
        const { ledger } = opened.store;
        await ledger.createAccount('weekly', null, NOW, { maxSpend: 5n, spendPeriod: { unit: 'week', timezone: 'Europe/Berlin' } });
        await ledger.createAccount('lifetime', null, NOW, { maxSpend: 7n });
        await ledger.createAccount('declared', null, NOW);
        await ledger.createAccount('plain', null, NOW);
        await ledger.createAccount('off', null, NOW, { maxSpend: 7n });
        await ledger.setAccountDisabled('off', true);
        const { facts } = opened.store.part(WEBHOOK_STORE);
        assert.deepEqual(await facts.capAccounts(['declared']), [
          { name: 'declared', spendCap: undefined },
          { name: 'lifetime', spendCap: { maxSpend: 7n } },
          { name: 'weekly', spendCap: { maxSpend: 5n, spendPeriod: { unit: 'week', timezone: 'Europe/Berlin' } } },
        ]);
        assert.deepEqual((await facts.capAccounts([])).map((a) => a.name), ['lifetime', 'weekly']);
      } finally {
        await opened.cleanup();
      }
    });
  });
}
