import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NewKey } from '../../../core/store/store.js';
import { storeBackends } from '../../helpers/test-stores.js';
import { useTempStore } from './store-fixtures.js';

function newKey(name: string, n: number): NewKey {
  return { id: `id-${n}`, name, group: 'default', prefix: `sk-${n}`, hash: `hash-${n}`, createdAt: 1000 + n };
}

for (const backend of storeBackends()) describe(`store keys (${backend.name})`, { skip: backend.skip }, () => {
  const temp = useTempStore('keys.db', backend);

  it('creates, finds by hash and lists keys', async () => {
    const created = await temp.get().createKey(newKey('alice', 1));
    assert.deepEqual(created, { ...newKey('alice', 1), revokedAt: null });
    await temp.get().createKey({ ...newKey('bob', 2), group: 'vip' });

    assert.deepEqual(await temp.get().findKeyByHash('hash-1'), created);
    assert.equal(await temp.get().findKeyByHash('hash-none'), undefined);

    const keys = await temp.get().listKeys();
    assert.deepEqual(
      keys.map((k) => [k.name, k.group]),
      [
        ['alice', 'default'],
        ['bob', 'vip'],
      ],
    );
  });

  it('keeps a key\'s own limits (each one optional); a key without has none', async () => {
    await temp.get().createKey(Object.assign(newKey('paced', 3), { limits: { rpm: 10, concurrency: 4 } }));
    await temp.get().createKey(Object.assign(newKey('tokens', 4), { limits: { tpm: 100_000 } }));
    await temp.get().createKey(newKey('plain', 5));
    assert.deepEqual((await temp.get().findKeyByHash('hash-3'))?.limits, { rpm: 10, concurrency: 4 });
    assert.deepEqual((await temp.get().findKeyByHash('hash-4'))?.limits, { tpm: 100_000 });
    const plain = await temp.get().findKeyByHash('hash-5');
    assert.equal(plain !== undefined && 'limits' in plain, false);
  });

  it('edits a key by id or name: only the fields given; null clears; a rename to a taken name is refused', async () => {
    await temp.get().createKey(Object.assign(newKey('edited', 6), { maxSpend: 5n, limits: { rpm: 3 } }));
    await temp.get().createKey(newKey('other', 7));
    const set = await temp.get().updateKey('edited', { expiresAt: 2_000_000, disabled: true, models: ['gpt-4o', 'claude-*'], ips: ['10.0.0.0/8'] });
    assert.deepEqual(
      [set?.expiresAt, set?.disabled, set?.models, set?.ips, set?.maxSpend, set?.limits],
      [2_000_000, true, ['gpt-4o', 'claude-*'], ['10.0.0.0/8'], 5n, { rpm: 3 }],
    );
    const cleared = await temp.get().updateKey('id-6', { expiresAt: null, disabled: false, models: null, ips: null, maxSpend: null, limits: null, name: 'renamed' });
    assert.deepEqual(cleared, { ...newKey('renamed', 6), revokedAt: null });
    assert.deepEqual(await temp.get().findKeyByHash('hash-6'), cleared);
    await assert.rejects(temp.get().updateKey('renamed', { name: 'other' }), /name "other" is already taken/);
    assert.equal(await temp.get().updateKey('nobody', { disabled: true }), undefined);
  });

  it('rejects a duplicate name, saying the name is taken', async () => {
    await temp.get().createKey(newKey('alice', 1));
    await assert.rejects(temp.get().createKey({ ...newKey('alice', 2) }), /name "alice" is already taken/);
    assert.equal((await temp.get().listKeys()).length, 1);
  });

  it('rejects a duplicate hash without printing it', async () => {
    await temp.get().createKey(newKey('alice', 1));
    await assert.rejects(temp.get().createKey({ ...newKey('bob', 2), hash: 'hash-1' }), (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /"bob"/);
      assert.doesNotMatch(err.message, /hash-1/);
      return true;
    });
  });

  it('revokes by id and keeps the first revocation time', async () => {
    await temp.get().createKey(newKey('alice', 1));
    const revoked = await temp.get().revokeKey('id-1', 5000);
    assert.equal(revoked?.revokedAt, 5000);
    const again = await temp.get().revokeKey('id-1', 9000);
    assert.equal(again?.revokedAt, 5000);
    assert.equal((await temp.get().findKeyByHash('hash-1'))?.revokedAt, 5000);
  });

  it('revokes by name', async () => {
    await temp.get().createKey(newKey('alice', 1));
    await temp.get().createKey(newKey('bob', 2));
    const revoked = await temp.get().revokeKey('bob', 7000);
    assert.equal(revoked?.id, 'id-2');
    assert.equal(revoked?.revokedAt, 7000);
    assert.equal((await temp.get().findKeyByHash('hash-1'))?.revokedAt, null);
  });

  it('prefers an id match over a name match', async () => {
    await temp.get().createKey(newKey('alice', 1));
    await temp.get().createKey(newKey('id-1', 2));
    const revoked = await temp.get().revokeKey('id-1', 7000);
    assert.equal(revoked?.name, 'alice');
    assert.equal((await temp.get().findKeyByHash('hash-2'))?.revokedAt, null);
  });

  it('returns undefined when no key matches', async () => {
    assert.equal(await temp.get().revokeKey('nobody', 1), undefined);
  });
});
