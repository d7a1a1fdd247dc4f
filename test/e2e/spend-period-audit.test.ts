// The books of a daily max_spend, over real requests on a moved calendar clock: each usage record names the period row
// its charge added to (spend_id), and the audit checks every period row against the records naming it, those kept and
// those usage.retention_days pruned; a row changed by hand is reported. The usage pruner's run deletes the rows of
// periods long over (and their pruned sums), and the audit does not miss those, but does miss a row deleted earlier.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditBooks } from '../../core/money/audit.js';
import { createSilentLogger } from '../../core/logging/logger.js';
import { PERIOD_ROWS_KEPT_MS } from '../../core/store/period-spends.js';
import { UsagePruner } from '../../core/store/usage-pruner.js';
import { postChat } from '../helpers/chat-requests.js';
import { DEFAULT_USAGE, FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { runStatement, selectRows } from '../helpers/store-rows.js';
import { storeBackends } from '../helpers/test-stores.js';

const KEY = 'sk-daily-audit-0123456789abcdefgh';
const ADMIN = 'test-admin-token-0123456789';
/** 7 completion tokens at 1.00 per 1M. */
const COST = BigInt(DEFAULT_USAGE.completion) * 1000n;
const DAY_1 = Date.parse('2030-01-10T12:00:00Z');
const DAY_2 = Date.parse('2030-01-11T12:00:00Z');
const ROW_1 = 'config:daily@2030-01-10T00:00:00.000Z';
const ROW_2 = 'config:daily@2030-01-11T00:00:00.000Z';

function config(storeUrl: string, upstream: string): string {
  return `server: { host: 127.0.0.1, port: 0, admin_token: ${ADMIN} }
store: { url: "${storeUrl}" }
pricing:
  models:
    "gpt-4o": { input: 0, output: 1.00 }
groups:
  pro: { models: ["*"] }
accounts:
  - name: acme
keys:
  - { name: daily, key: ${KEY}, group: pro, account: acme, max_spend: { amount: "1.00", period: day } }
channels:
  - { name: up, type: openai, base_url: "${upstream}", keys: [sk-up], models: ["gpt-*"] }
`;
}

for (const backend of storeBackends()) {
  describe(`the audit of period spend rows (${backend.name})`, { skip: backend.skip }, () => {
    const upstream = new FakeOpenAI('up');
    let db: { readonly url: string; cleanup(): Promise<void> };
    let gw: GatewayUnderTest;
    let now = DAY_1;

    before(async () => {
      await upstream.start();
      db = await backend.fresh();
      gw = await startGatewayUnderTest(config(db.url, upstream.url), { clock: () => now });
      const credited = await fetch(`${gw.url}/admin/accounts/acme/credit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '10.00', idempotency_key: 'start' }),
      });
      assert.equal(credited.status, 201, await credited.text());
    });
    after(async () => {
      await gw?.stop();
      await upstream.close();
      await db?.cleanup();
    });

    const ask = async (): Promise<void> => {
      const res = await postChat(gw.url, { model: 'gpt-4o', max_tokens: DEFAULT_USAGE.completion, messages: [{ role: 'user', content: 'hi' }] }, { key: KEY });
      assert.equal(res.status, 200, await res.text());
    };
    const store = () => gw.gateway.runtime.deps.store;

    it('passes after period traffic and pruned records, reports a tampered row, and skips the rows of periods pruned', async () => {
      for (let i = 0; i < 3; i++) await ask();
      now = DAY_2;
      for (let i = 0; i < 2; i++) await ask();
      await gw.gateway.runtime.deps.writer.flush();

      const named = await selectRows<{ spend_id: string }>(db.url, 'select spend_id from usage_records where spend_id is not null order by id');
      assert.deepEqual(named.map((r) => r.spend_id), [ROW_1, ROW_1, ROW_1, ROW_2, ROW_2], 'each record names the period row it was charged to');
      const spends = await store().ledger.keySpends([ROW_1, ROW_2]);
      assert.deepEqual([spends.get(ROW_1), spends.get(ROW_2)], [3n * COST, 2n * COST]);
      assert.deepEqual((await auditBooks(store(), now)).problems, []);

      // Records pruned by retention (the two oldest, of day 1): what they cost stays counted for their row.
      assert.equal(await store().pruneUsage(Date.now() + 60_000, 2), 2);
      assert.deepEqual((await auditBooks(store(), now)).problems, []);

      // A period row changed by hand is reported, and only it.
      await runStatement(db.url, `update key_spend set spent = spent + 1 where key_id = '${ROW_1}'`);
      assert.deepEqual((await auditBooks(store(), now)).problems, [`spend row "${ROW_1}": spent ${3n * COST + 1n} but the usage records naming it cost ${3n * COST} (nano-units)`]);
      await runStatement(db.url, `update key_spend set spent = spent - 1 where key_id = '${ROW_1}'`);
      assert.deepEqual((await auditBooks(store(), now)).problems, []);

      // The pruner's run once day 1 ended long ago (on the calendar clock): its row goes, with its pruned sum; day 2's
      // and the lifetime row stay.
      const later = Date.parse('2030-01-10T00:00:00Z') + PERIOD_ROWS_KEPT_MS + 1;
      await new UsagePruner({ store: store(), retentionDays: () => null, logger: createSilentLogger(), calendar: () => later }).run();
      const left = await store().ledger.keySpends(['config:daily', ROW_1, ROW_2]);
      assert.deepEqual([left.get('config:daily'), left.get(ROW_1), left.get(ROW_2)], [5n * COST, undefined, 2n * COST]);
      assert.deepEqual(await selectRows(db.url, `select spend_id from usage_pruned_spend where spend_id = '${ROW_1}'`), []);
      // Not missed once the pruner may have deleted it; missed before then (the one record of day 1 left names it).
      assert.deepEqual((await auditBooks(store(), later)).problems, []);
      assert.deepEqual((await auditBooks(store(), DAY_2)).problems, [`spend row "${ROW_1}" is missing but its usage records cost ${COST} (nano-units)`]);
    });
  });
}
