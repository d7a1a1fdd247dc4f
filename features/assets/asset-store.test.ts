// The asset library's ownership in the store (store/asset-store.ts), on SQLite and PostgreSQL: a key's bound groups
// paged and counted, filtered by ids and by a name (any case, its wildcards literal), unbound in the transaction that
// revokes their key, bound again to another key; assets and their statuses; the mock library's records.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssetGroupRow } from './asset-store.js';
import { storeBackends } from '../../test/helpers/test-stores.js';
import { useTempStore } from '../../test/core/store/store-fixtures.js';
import { ASSET_STORE } from './store-part.js';

const T0 = 1_700_000_000_000;
const KA = { keyId: 'ka', account: 'acme' };

function group(id: string, keyId: string, at: number, name = id): AssetGroupRow {
  return { id, channel: 'ark', keyId, account: 'acme', bound: true, name, createdAt: at, updatedAt: at };
}

for (const backend of storeBackends()) describe(`asset store (${backend.name})`, { skip: backend.skip }, () => {
  const temp = useTempStore('assets.db', backend);

  it('pages a key bound groups newest first, counts all of them, filters by ids and by name', async () => {
    const assets = temp.get().part(ASSET_STORE);
    for (let i = 0; i < 25; i++) await assets.addGroup(group(`g${String(i).padStart(2, '0')}`, 'ka', T0 + i, i === 3 ? 'Cats_100%' : `group ${i}`));
    await assets.addGroup(group('other', 'kb', T0 + 100));
    const query = { sortBy: 'CreateTime' as const, ascending: false, offset: 0, limit: 10 };
    const first = await assets.keyGroups(KA, query);
    assert.equal(first.total, 25);
    assert.deepEqual(first.rows.map((g) => g.id).slice(0, 2), ['g24', 'g23']);
    const last = await assets.keyGroups(KA, Object.assign({}, query, { offset: 20 }));
    assert.deepEqual(last.rows.map((g) => g.id), ['g04', 'g03', 'g02', 'g01', 'g00']);
    const ascending = await assets.keyGroups(KA, Object.assign({}, query, { ascending: true, limit: 2 }));
    assert.deepEqual(ascending.rows.map((g) => g.id), ['g00', 'g01']);
    const byIds = await assets.keyGroups(KA, Object.assign({}, query, { ids: ['g01', 'g02', 'other'] }));
    assert.deepEqual([byIds.total, byIds.rows.map((g) => g.id)], [2, ['g02', 'g01']]);
    assert.deepEqual(await assets.keyGroups(KA, Object.assign({}, query, { ids: [] })), { rows: [], total: 0 });
    const named = await assets.keyGroups(KA, Object.assign({}, query, { name: 'cats_100%' }));
    assert.deepEqual(named.rows.map((g) => g.id), ['g03'], 'any case');
    assert.equal((await assets.keyGroups(KA, Object.assign({}, query, { name: '%' }))).total, 1, 'a % in the name is literal');
    assert.equal((await assets.keyGroups(KA, Object.assign({}, query, { name: '_' }))).total, 1, 'so is _');
    assert.equal((await assets.boundGroupIds(KA)).length, 25);
    assert.equal((await assets.keyGroups({ keyId: 'ka', account: 'other' }, query)).total, 0, 'of the key while it is of the account');
    assert.equal((await assets.boundGroupIds({ keyId: 'ka', account: null })).length, 0);
  });

  it('unbinds a key groups when the key is revoked, and binds a group to another key', async () => {
    const store = temp.get();
    const made = await store.createKey({ id: 'k-old', name: 'old', hash: 'h-old', prefix: 'sk-old', group: 'pro', createdAt: T0, account: 'acme' });
    await store.part(ASSET_STORE).addGroup(group('g-rot', made.id, T0));
    await store.revokeKey('old', T0 + 1);
    const unbound = await store.part(ASSET_STORE).group('g-rot');
    assert.equal(unbound?.bound, false);
    assert.equal(unbound?.keyId, 'k-old', 'who made it is kept');
    assert.deepEqual(await store.part(ASSET_STORE).boundGroupIds({ keyId: 'k-old', account: 'acme' }), []);
    await store.part(ASSET_STORE).bindGroup('g-rot', 'k-new', T0 + 2);
    const bound = await store.part(ASSET_STORE).group('g-rot');
    assert.deepEqual([bound?.bound, bound?.keyId], [true, 'k-new']);
    assert.deepEqual(await store.part(ASSET_STORE).boundGroupIds({ keyId: 'k-new', account: 'acme' }), [{ id: 'g-rot', channel: 'ark' }]);
    const listed = await store.part(ASSET_STORE).accountGroups('acme', { offset: 0, limit: 10 });
    assert.equal(listed.total, 1);
    assert.equal((await store.part(ASSET_STORE).accountGroups('other', { offset: 0, limit: 10 })).total, 0);
  });

  it('keeps assets with their statuses, and the mock library records', async () => {
    const assets = temp.get().part(ASSET_STORE);
    await assets.addGroup(group('g1', 'ka', T0));
    await assets.addAsset({ id: 'a1', groupId: 'g1', channel: 'ark', assetType: 'Image', status: 'Processing', createdAt: T0, updatedAt: T0 });
    await assets.addAsset({ id: 'a2', groupId: 'g1', channel: 'ark', assetType: 'Video', status: 'Processing', createdAt: T0 + 1, updatedAt: T0 + 1 });
    await assets.setAssetStatus('a1', 'Active', T0 + 5);
    assert.equal((await assets.asset('a1'))?.status, 'Active');
    assert.deepEqual((await assets.groupAssets(['g1'], 10)).map((a) => a.id), ['a2', 'a1']);
    assert.equal(await assets.asset('missing'), undefined);

    await assets.mock.put({ id: 'mg', channel: 'demo', kind: 'group', groupId: null, createdAt: T0, record: { Id: 'mg', Name: 'n' } });
    await assets.mock.put({ id: 'ma', channel: 'demo', kind: 'asset', groupId: 'mg', createdAt: T0, record: { Id: 'ma' } });
    await assets.mock.put({ id: 'mg', channel: 'demo', kind: 'group', groupId: null, createdAt: T0, record: { Id: 'mg', Name: 'renamed' } });
    assert.deepEqual((await assets.mock.get('demo', 'mg'))?.record, { Id: 'mg', Name: 'renamed' });
    assert.equal(await assets.mock.get('other-channel', 'mg'), undefined);
    const listed = await assets.mock.list({ channel: 'demo', kind: 'asset', ids: ['mg'], offset: 0, limit: 10 });
    assert.deepEqual([listed.total, listed.rows.map((r) => r.id)], [1, ['ma']]);
    assert.deepEqual(await assets.mock.list({ channel: 'demo', kind: 'asset', ids: [], offset: 0, limit: 10 }), { rows: [], total: 0 });
  });
});
