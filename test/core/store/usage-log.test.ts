// The usage log as the console reads it (store/usage-log.ts), on SQLite and PostgreSQL: each filter alone, pages by
// keyset that neither skip nor repeat a record when several share a timestamp, totals of the whole filter (not of
// a page), and each key's last use.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UsageCursor, UsageFilter } from '../../../core/store/usage-log.js';
import { storeBackends } from '../../helpers/test-stores.js';
import { makeUsage, useTempStore } from './store-fixtures.js';

const T0 = 1_700_000_000_000;

for (const backend of storeBackends()) describe(`usage log (${backend.name})`, { skip: backend.skip }, () => {
  const temp = useTempStore('usage-log.db', backend);

  async function seed(): Promise<void> {
    const store = temp.get();
    await store.ledger.ensureAccounts([{ name: 'acme', description: null }, { name: 'beta', description: null }], T0);
    const records = [];
    // 25 records, three to a millisecond: a page boundary falls inside a shared timestamp.
    for (let i = 0; i < 25; i++) {
      records.push(
        makeUsage({
          requestId: `r${i}`,
          ts: T0 + Math.floor(i / 3),
          account: i % 2 === 0 ? 'acme' : 'beta',
          keyId: i % 2 === 0 ? 'ka' : 'kb',
          model: i % 5 === 0 ? 'claude' : 'gpt-4o',
          route: i % 4 === 0 ? '/v1/messages' : '/v1/chat/completions',
          status: i % 7 === 0 ? 429 : 200,
          cost: BigInt(i * 10),
          priceVersion: 'v1',
        }),
      );
    }
    await store.insertUsage(records);
  }

  const ids = async (filter: UsageFilter): Promise<string[]> => (await temp.get().usageLog(Object.assign({ limit: 100 }, filter))).map((r) => r.record.requestId);
  const range = { from: T0, to: T0 + 1000 };

  it('filters by account, key, model, route, status and request id, newest first', async () => {
    await seed();
    assert.deepEqual((await ids(range)).slice(0, 4), ['r24', 'r23', 'r22', 'r21']);
    assert.equal((await ids(Object.assign({ account: 'acme' }, range))).length, 13);
    assert.ok((await ids(Object.assign({ keyId: 'kb' }, range))).every((id) => Number(id.slice(1)) % 2 === 1));
    assert.deepEqual(await ids(Object.assign({ model: 'claude' }, range)), ['r20', 'r15', 'r10', 'r5', 'r0']);
    assert.deepEqual(await ids(Object.assign({ route: '/v1/messages', account: 'acme' }, range)), ['r24', 'r20', 'r16', 'r12', 'r8', 'r4', 'r0']);
    assert.deepEqual(await ids(Object.assign({ status: 'error' as const }, range)), ['r21', 'r14', 'r7', 'r0']);
    assert.deepEqual(await ids(Object.assign({ status: 429 }, range)), ['r21', 'r14', 'r7', 'r0']);
    assert.equal((await ids(Object.assign({ status: 'ok' as const }, range))).length, 21);
    assert.deepEqual(await ids(Object.assign({ requestId: 'r13' }, range)), ['r13']);
    // The range: from inclusive, to exclusive.
    assert.deepEqual(await ids({ from: T0 + 1, to: T0 + 2 }), ['r5', 'r4', 'r3']);
  });

  it('pages by keyset without skipping or repeating records that share a timestamp', async () => {
    await seed();
    const seen: string[] = [];
    let before: UsageCursor | undefined;
    for (let page = 0; page < 20; page++) {
      const rows = await temp.get().usageLog(Object.assign({ limit: 4 }, range, before === undefined ? {} : { before }));
      seen.push(...rows.map((r) => r.record.requestId));
      const last = rows[rows.length - 1];
      if (rows.length < 4 || last === undefined) break;
      before = { ts: last.record.ts, id: last.id };
    }
    assert.deepEqual(seen, Array.from({ length: 25 }, (_, i) => `r${24 - i}`));
  });

  it('totals whole hours from the hourly sums and the ends from the records, as the records alone would', async () => {
    const store = temp.get();
    const HOUR = 3_600_000;
    const h0 = T0 - (T0 % HOUR);
    await store.ledger.ensureAccounts([{ name: 'acme', description: null }], T0);
    const records = [];
    // 60 records over five hours, ten minutes apart, two accounts (one unmetered), two models.
    for (let i = 0; i < 60; i++) {
      const shared = { requestId: `h${i}`, ts: h0 + i * 300_000, model: i % 2 === 0 ? 'gpt-4o' : 'claude', promptTokens: i, status: i % 11 === 0 ? 500 : 200 };
      records.push(makeUsage(i % 3 === 0 ? Object.assign({ keyId: 'free' }, shared) : Object.assign({ keyId: 'ka', account: 'acme', cost: BigInt(i), priceVersion: 'v1' }, shared)));
    }
    await store.insertUsage(records);
    const from = h0 + 17 * 60_000;
    const to = h0 + 4 * HOUR + 23 * 60_000;
    for (const extra of [{}, { account: 'acme' }, { model: 'claude' }, { keyId: 'free' }, { account: 'acme', model: 'gpt-4o' }]) {
      const filter = Object.assign({ from, to }, extra);
      const rows = (await store.usageLog(Object.assign({ limit: 1000 }, filter))).map((r) => r.record);
      const totals = await store.usageTotals(filter);
      const label = JSON.stringify(extra);
      assert.equal(totals.requests, rows.length, label);
      assert.equal(totals.errors, rows.filter((r) => r.status >= 400).length, label);
      assert.equal(totals.promptTokens, rows.reduce((s, r) => s + r.promptTokens, 0), label);
      assert.equal(totals.cost, rows.reduce((s, r) => s + (r.cost ?? 0n), 0n), label);
    }
    // Inside one hour: the records alone.
    assert.equal((await store.usageTotals({ from: h0 + 60_000, to: h0 + 20 * 60_000 })).requests, 3);
  });

  it('totals the whole filter, and finds each key\'s last use', async () => {
    await seed();
    const store = temp.get();
    const totals = await store.usageTotals(Object.assign({ account: 'beta' }, range));
    // beta: the odd records, 12 of them; errors r7 and r21; cost 10 * (1 + 3 + ... + 23).
    assert.equal(totals.requests, 12);
    assert.equal(totals.errors, 2);
    assert.equal(totals.cost, 1440n);
    assert.equal(totals.promptTokens, 12 * 12);
    const none = await store.usageTotals({ from: T0 - 10, to: T0 });
    assert.deepEqual([none.requests, none.cost, none.promptTokens], [0, 0n, 0]);
    const used = await store.lastUsed(['ka', 'kb', 'never']);
    assert.deepEqual([...used.entries()].sort(), [
      ['ka', T0 + 8],
      ['kb', T0 + 7],
    ]);
  });
});
