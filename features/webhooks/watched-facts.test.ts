// budget_reached's key query (watched-facts.ts keysAtCap) on SQLite and PostgreSQL: a run-time key whose lifetime
// spend passed its lifetime max_spend is found; one whose max_spend is per period is not (the row it compares is the
// lifetime spend, not the period's: issue 45's run-time period caps).

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
        const capped = await store.part(WEBHOOK_STORE).facts.keysAtCap();
        assert.deepEqual(capped.map((k) => k.id), ['lifetime']);
      } finally {
        await opened.cleanup();
      }
    });
  });
}
