import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openStore } from '../../../core/store/open-store.js';
import type { NewKey, Store } from '../../../core/store/store.js';
import { makeTempDir } from './store-fixtures.js';

function newKey(name: string, n: number): NewKey {
  return { id: `id-${n}`, name, group: 'default', prefix: `sk-${n}`, hash: `hash-${n}`, createdAt: 1000 + n };
}

describe('store keys', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    const tmp = await makeTempDir();
    cleanup = tmp.cleanup;
    store = await openStore(`sqlite:${join(tmp.dir, 'keys.db')}`);
  });
  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  it('creates, finds by hash and lists keys', async () => {
    const created = await store.createKey(newKey('alice', 1));
    assert.deepEqual(created, { ...newKey('alice', 1), revokedAt: null });
    await store.createKey({ ...newKey('bob', 2), group: 'vip' });

    assert.deepEqual(await store.findKeyByHash('hash-1'), created);
    assert.equal(await store.findKeyByHash('hash-none'), undefined);

    const keys = await store.listKeys();
    assert.deepEqual(
      keys.map((k) => [k.name, k.group]),
      [
        ['alice', 'default'],
        ['bob', 'vip'],
      ],
    );
  });

  it('rejects a duplicate name, saying the name is taken', async () => {
    await store.createKey(newKey('alice', 1));
    await assert.rejects(store.createKey({ ...newKey('alice', 2) }), /name "alice" is already taken/);
    assert.equal((await store.listKeys()).length, 1);
  });

  it('rejects a duplicate hash without printing it', async () => {
    await store.createKey(newKey('alice', 1));
    await assert.rejects(store.createKey({ ...newKey('bob', 2), hash: 'hash-1' }), (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /"bob"/);
      assert.doesNotMatch(err.message, /hash-1/);
      return true;
    });
  });

  it('revokes by id and keeps the first revocation time', async () => {
    await store.createKey(newKey('alice', 1));
    const revoked = await store.revokeKey('id-1', 5000);
    assert.equal(revoked?.revokedAt, 5000);
    const again = await store.revokeKey('id-1', 9000);
    assert.equal(again?.revokedAt, 5000);
    assert.equal((await store.findKeyByHash('hash-1'))?.revokedAt, 5000);
  });

  it('revokes by name', async () => {
    await store.createKey(newKey('alice', 1));
    await store.createKey(newKey('bob', 2));
    const revoked = await store.revokeKey('bob', 7000);
    assert.equal(revoked?.id, 'id-2');
    assert.equal(revoked?.revokedAt, 7000);
    assert.equal((await store.findKeyByHash('hash-1'))?.revokedAt, null);
  });

  it('prefers an id match over a name match', async () => {
    await store.createKey(newKey('alice', 1));
    await store.createKey(newKey('id-1', 2));
    const revoked = await store.revokeKey('id-1', 7000);
    assert.equal(revoked?.name, 'alice');
    assert.equal((await store.findKeyByHash('hash-2'))?.revokedAt, null);
  });

  it('returns undefined when no key matches', async () => {
    assert.equal(await store.revokeKey('nobody', 1), undefined);
  });
});
