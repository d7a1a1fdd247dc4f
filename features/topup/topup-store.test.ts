// The top-up store on SQLite and PostgreSQL: a code redeemed by many attempts at once, spread over two store
// connections (two instances' pools), credits exactly once (one ledger entry, the balance moved once); expired,
// disabled and used codes are refused and change nothing; a batch's idempotency key makes it once. Code material:
// normalised as people type it, and 130 random bits.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../core/store/open-store.js';
import type { Store } from '../../core/store/store.js';
import { storeBackends } from '../../test/helpers/test-stores.js';
import { digestCode, generateCode, lastFour, newBatchId, newCodeId, normalizeCode } from './code-material.js';
import { TOPUP_STORE, topupStorePart } from './store-part.js';
import type { Redemption, TopupCode } from './topup-store.js';

const NOW = 1_800_000_000_000;
const AMOUNT = 2_500_000_000n;
const note = (c: TopupCode): string => `top-up code ${c.id}`;

describe('top-up code material', () => {
  it('normalises case, spaces, dashes and the letters Crockford reads as digits; refuses anything else', () => {
    const code = generateCode();
    assert.match(code, /^TOPUP(-[0-9A-HJKMNP-TV-Z]{5}){4}-[0-9A-HJKMNP-TV-Z]{6}$/);
    const normalized = normalizeCode(code);
    assert.equal(normalized, code.replaceAll('-', ''));
    assert.equal(normalizeCode(` ${code.toLowerCase().replaceAll('-', ' ')} `), normalized);
    assert.equal(normalizeCode('TOPUP-O1234-56789-ABCDE-FGHJK-MNPQRI'), 'TOPUP0123456789ABCDEFGHJKMNPQR1');
    for (const bad of ['', 'TOPUP', code.slice(0, -1), `${code}X`, code.replace('TOPUP', 'TOPUQ'), `${code.slice(0, -1)}U`, 'x'.repeat(200)]) assert.equal(normalizeCode(bad), null, bad);
  });

  it('has 130 random bits: 1,000 codes are distinct and use every one of the 32 characters', () => {
    const codes = Array.from({ length: 1000 }, () => normalizeCode(generateCode()) ?? '');
    assert.equal(new Set(codes).size, 1000);
    assert.equal(new Set(codes.join('').replaceAll('TOPUP', '')).size, 32);
  });
});

for (const backend of storeBackends()) {
  describe(`top-up store (${backend.name})`, { skip: backend.skip }, () => {
    let db: { readonly url: string; cleanup(): Promise<void> };
    let first: Store;
    let second: Store;

    /** A batch of `count` codes; their normalised secrets. */
    async function batch(count: number, options: { expiresAt?: number; key?: string } = {}): Promise<{ id: string; secrets: string[] }> {
      const secrets = Array.from({ length: count }, () => normalizeCode(generateCode()) ?? '');
      const id = newBatchId();
      await first.part(TOPUP_STORE).createBatch({
        id,
        amount: AMOUNT,
        note: 'test',
        idempotencyKey: options.key ?? id,
        createdAt: NOW,
        expiresAt: options.expiresAt ?? null,
        codes: secrets.map((s) => ({ id: newCodeId(), hash: digestCode(s), last4: lastFour(s) })),
      });
      return { id, secrets };
    }

    before(async () => {
      db = await backend.fresh();
      // PostgreSQL: two stores on one database, two instances' connections, each with its own pool. SQLite: one (its
      // driver is synchronous, so a second connection of this process would wait on the first while blocking it).
      // Core's store with this feature's part only: the database is this test's own.
      first = await openStore(db.url, [topupStorePart], { poolMax: 4 });
      second = backend.name === 'postgres' ? await openStore(db.url, [topupStorePart], { poolMax: 4 }) : first;
      await first.ledger.ensureAccounts([{ name: 'acme', description: null }, { name: 'initech', description: null }], NOW);
    });
    after(async () => {
      if (second !== first) await second?.close();
      await first?.close();
      await db?.cleanup();
    });

    it('40 redemptions of one code at once, over two connections and two accounts: one credit', async () => {
      const { secrets } = await batch(1);
      const hash = digestCode(secrets[0] ?? '');
      const attempts = Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? first : second).part(TOPUP_STORE).redeem(hash, { account: i % 4 < 2 ? 'acme' : 'initech', user: `user-${i}` }, NOW + 1, note),
      );
      const results: Redemption[] = await Promise.all(attempts);
      const won = results.filter((r) => r.outcome === 'redeemed');
      assert.equal(won.length, 1, 'exactly one redemption');
      assert.deepEqual(new Set(results.filter((r) => r.outcome !== 'redeemed').map((r) => r.outcome)), new Set(['used']));
      const winner = won[0];
      assert.ok(winner?.outcome === 'redeemed');
      const account = winner.code.redeemedAccount ?? '';
      const other = account === 'acme' ? 'initech' : 'acme';
      assert.equal((await first.ledger.getAccount(account))?.balance, AMOUNT);
      assert.equal((await first.ledger.getAccount(other))?.balance, 0n);
      const entries = [...(await first.ledger.listLedger('acme', 100)), ...(await first.ledger.listLedger('initech', 100))];
      assert.deepEqual(entries.map((e) => [e.kind, e.amount, e.idempotencyKey]), [['credit', AMOUNT, `topup:${winner.code.id}`]]);
      const row = await second.part(TOPUP_STORE).code(winner.code.id);
      assert.equal(row?.redeemedAccount, account);
      assert.equal(row?.redeemedAt, NOW + 1);
      assert.equal(row?.ledgerEntryId, entries[0]?.id);
      assert.match(row?.redeemedBy ?? '', /^user-\d+$/);
      assert.deepEqual(await first.ledger.auditLedger(), []);
    });

    it('an expired, a disabled (code or batch) and an unknown code are refused and change nothing', async () => {
      const before = (await first.ledger.getAccount('acme'))?.balance;
      const expiring = await batch(1, { expiresAt: NOW + 10 });
      const store = first.part(TOPUP_STORE);
      const who = { account: 'acme', user: 'ada' };
      assert.equal((await store.redeem(digestCode(expiring.secrets[0] ?? ''), who, NOW + 10, note)).outcome, 'expired');
      const disabledBatch = await batch(2);
      await store.setBatchDisabled(disabledBatch.id, NOW);
      assert.equal((await store.redeem(digestCode(disabledBatch.secrets[0] ?? ''), who, NOW, note)).outcome, 'disabled');
      const one = await batch(2);
      const codes = (await store.listCodes({ batchId: one.id }, NOW, 0, 10)).rows;
      const target = codes.find((c) => c.last4 === lastFour(one.secrets[0] ?? ''));
      await store.setCodeDisabled(target?.id ?? '', NOW);
      assert.equal((await store.redeem(digestCode(one.secrets[0] ?? ''), who, NOW, note)).outcome, 'disabled');
      assert.equal((await store.redeem(digestCode(normalizeCode(generateCode()) ?? ''), who, NOW, note)).outcome, 'unknown');
      assert.equal((await first.ledger.getAccount('acme'))?.balance, before);
      // Enabled again, it credits; then it is used.
      await store.setCodeDisabled(target?.id ?? '', null);
      assert.equal((await store.redeem(digestCode(one.secrets[0] ?? ''), who, NOW, note)).outcome, 'redeemed');
      assert.equal((await store.redeem(digestCode(one.secrets[0] ?? ''), who, NOW, note)).outcome, 'used');
      assert.equal((await first.ledger.getAccount('acme'))?.balance, (before ?? 0n) + AMOUNT);
      // Every code so far: the first test's, the expiring one, the disabled batch's two and this batch's two.
      assert.equal((await store.listCodes({}, NOW + 10, 0, 100)).total, 6);
      assert.equal((await store.listCodes({ status: 'active' }, NOW + 10, 0, 100)).total, 1);
      assert.equal((await store.listCodes({ status: 'expired' }, NOW + 10, 0, 100)).total, 1);
      assert.equal((await store.listCodes({ status: 'disabled' }, NOW + 10, 0, 100)).total, 2, 'the disabled batch\'s two');
      assert.equal((await store.listCodes({ account: 'acme', status: 'redeemed' }, NOW, 0, 100)).total, before === AMOUNT ? 2 : 1, 'with the first test\'s when acme won it');
    });

    it('a batch\'s idempotency key makes it once, also when two makes race', async () => {
      const key = `race-${backend.name}`;
      const made = await Promise.all([batch(3, { key }), batch(3, { key })]);
      const listed = (await first.part(TOPUP_STORE).listBatches(0, 50)).rows.filter((b) => made.some((m) => m.id === b.id));
      assert.equal(listed.length, 1);
      assert.equal((await first.part(TOPUP_STORE).listCodes({ batchId: listed[0]?.id ?? '' }, NOW, 0, 10)).total, 3);
    });
  });
}
