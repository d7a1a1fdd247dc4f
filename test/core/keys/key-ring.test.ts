// Gateway keys: material, authentication against config and a real SQLite store, caching, and header parsing.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { ResolvedDeclaredKey } from '../../../core/config/resolved.js';
import { GatewayError, type ErrorCode } from '../../../core/errors.js';
import { KeyRing } from '../../../core/keys/key-ring.js';
import { digestKey, generateKey, keyPrefix, newKeyId } from '../../../core/keys/key-material.js';
import { presentedKey } from '../../../core/keys/presented-key.js';
import type { Store, StoredKey } from '../../../core/store/store.js';
import { useTempStore } from '../store/store-fixtures.js';

const KEY_FORMAT = /^sk-[A-Za-z0-9]{40}$/;

function rejectsWith(code: ErrorCode): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.equal(err.status, 401);
    return true;
  };
}

async function addStoreKey(store: Store, name: string, group = 'default'): Promise<{ key: string; record: StoredKey }> {
  const key = generateKey();
  const record = await store.createKey({
    id: newKeyId(),
    name,
    group,
    prefix: keyPrefix(key),
    hash: digestKey(key),
    createdAt: 1_700_000_000_000,
  });
  return { key, record };
}

describe('key material', () => {
  it('generates sk- plus 40 base62 characters, unique across many keys', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const key = generateKey();
      assert.match(key, KEY_FORMAT);
      seen.add(key);
    }
    assert.equal(seen.size, 5_000);
  });

  it('uses the whole base62 alphabet', () => {
    const chars = new Set<string>();
    for (let i = 0; i < 500; i++) for (const ch of generateKey().slice(3)) chars.add(ch);
    assert.equal(chars.size, 62);
  });

  it('digests a key as hex SHA-256 of its UTF-8 bytes', () => {
    assert.equal(digestKey('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = generateKey();
    assert.equal(digestKey(key), createHash('sha256').update(Buffer.from(key, 'utf8')).digest('hex'));
    assert.match(digestKey(key), /^[0-9a-f]{64}$/);
    assert.notEqual(digestKey(key), digestKey(`${key}x`));
  });

  it('shows only a short prefix and makes prefixed ids', () => {
    assert.equal(keyPrefix('sk-AbCdEfGhIj'), 'sk-AbCd');
    assert.match(newKeyId(), /^key_[0-9a-f]{16}$/);
    assert.notEqual(newKeyId(), newKeyId());
  });
});

describe('KeyRing', () => {
  const declared: ResolvedDeclaredKey[] = [
    { name: 'alice', key: 'sk-declared-alice-0000000000000000000000000', group: 'team' },
    { name: 'bob', key: 'sk-declared-bob-000000000000000000000000000', group: 'default' },
  ];
  const temp = useTempStore('keys.db');

  it('authenticates declared keys as config:<name> with their group', async () => {
    const ring = new KeyRing(declared, temp.get());
    assert.deepEqual(await ring.authenticate(declared[0]?.key ?? ''), {
      kind: 'ok',
      key: { id: 'config:alice', name: 'alice', group: 'team' },
    });
    assert.deepEqual(await ring.authenticate(declared[1]?.key ?? ''), {
      kind: 'ok',
      key: { id: 'config:bob', name: 'bob', group: 'default' },
    });
  });

  it('authenticates a temp.get() key by its digest', async () => {
    const { key, record } = await addStoreKey(temp.get(), 'ci-bot', 'team');
    const ring = new KeyRing(declared, temp.get());
    assert.deepEqual(await ring.authenticate(key), { kind: 'ok', key: { id: record.id, name: 'ci-bot', group: 'team' } });
  });

  it('answers revoked for a revoked temp.get() key and unknown for anything else', async () => {
    const { key, record } = await addStoreKey(temp.get(), 'old');
    await temp.get().revokeKey(record.id, 1_700_000_001_000);
    const ring = new KeyRing(declared, temp.get());
    assert.deepEqual(await ring.authenticate(key), { kind: 'revoked' });
    assert.deepEqual(await ring.authenticate(generateKey()), { kind: 'unknown' });
    assert.deepEqual(await ring.authenticate(''), { kind: 'unknown' });
    assert.deepEqual(await ring.authenticate(`${declared[0]?.key ?? ''} `), { kind: 'unknown' }, 'no trimming here');
  });

  it('caches temp.get() lookups until forget(), which makes a revocation visible at once', async () => {
    const { key, record } = await addStoreKey(temp.get(), 'cached');
    const ring = new KeyRing([], temp.get(), { cacheTtlMs: 60_000 });
    assert.equal((await ring.authenticate(key)).kind, 'ok');
    await temp.get().revokeKey('cached', 1_700_000_002_000);
    assert.equal((await ring.authenticate(key)).kind, 'ok', 'the cached hit is still trusted');
    ring.forget();
    assert.deepEqual(await ring.authenticate(key), { kind: 'revoked' });
    assert.equal(record.revokedAt, null);
  });

  it('a lookup that began before forget() is not cached: the edit it raced applies from the next request', async () => {
    const { key } = await addStoreKey(temp.get(), 'raced');
    const real = temp.get();
    // A store whose answers arrive late: read before the edit, delivered after the forget().
    let release = (): void => undefined;
    const late = new Promise<void>((resolve) => (release = resolve));
    let read = (): void => undefined;
    const wasRead = new Promise<void>((resolve) => (read = resolve));
    const slow = Object.assign(Object.create(real) as Store, {
      findKeyByHash: async (hash: string) => {
        const found = await real.findKeyByHash(hash);
        read();
        await late;
        return found;
      },
    });
    const ring = new KeyRing([], slow, { cacheTtlMs: 60_000 });
    const inFlight = ring.authenticate(key); // reads the key as it is now (enabled)
    await wasRead;
    await real.updateKey('raced', { disabled: true });
    ring.forget();
    release();
    assert.equal((await inFlight).kind, 'ok', 'the lookup in flight answers what it read');
    assert.deepEqual(await ring.authenticate(key), { kind: 'disabled' }, 'and did not cache it');
  });

  it('caches misses too, until forget()', async () => {
    const ring = new KeyRing([], temp.get(), { cacheTtlMs: 60_000 });
    const key = generateKey();
    assert.equal((await ring.authenticate(key)).kind, 'unknown');
    await temp.get().createKey({
      id: newKeyId(),
      name: 'late',
      group: 'default',
      prefix: keyPrefix(key),
      hash: digestKey(key),
      createdAt: 1,
    });
    assert.equal((await ring.authenticate(key)).kind, 'unknown');
    ring.forget();
    assert.equal((await ring.authenticate(key)).kind, 'ok');
  });

  it('identify() maps outcomes to 401 error codes', async () => {
    const { key, record } = await addStoreKey(temp.get(), 'gone');
    await temp.get().revokeKey(record.id, 2);
    const ring = new KeyRing(declared, temp.get());
    assert.deepEqual(await ring.identify({ authorization: `Bearer ${declared[0]?.key ?? ''}` }), {
      id: 'config:alice',
      name: 'alice',
      group: 'team',
    });
    // identify() throws at once or rejects, depending on whether the store had to be asked.
    await assert.rejects(async () => ring.identify({ 'x-api-key': key }), rejectsWith('GW_ERR_AUTH_REVOKED_KEY'));
    await assert.rejects(async () => ring.identify({ 'x-api-key': generateKey() }), rejectsWith('GW_ERR_AUTH_INVALID_KEY'));
    await assert.rejects(async () => ring.identify({}), rejectsWith('GW_ERR_AUTH_MISSING_KEY'));
  });

  it('answers a declared key, and a store key looked up before, without a promise; the first lookup is one', async () => {
    const { key } = await addStoreKey(temp.get(), 'sync');
    const ring = new KeyRing(declared, temp.get(), { cacheTtlMs: 60_000 });
    const declaredOutcome = ring.authenticate(declared[1]?.key ?? '');
    assert.ok(!(declaredOutcome instanceof Promise));
    assert.equal(declaredOutcome.kind, 'ok');
    const first = ring.authenticate(key);
    assert.ok(first instanceof Promise, 'the store is asked the first time');
    assert.equal((await first).kind, 'ok');
    const again = ring.authenticate(key);
    assert.ok(!(again instanceof Promise), 'then the cached outcome is answered at once');
    assert.deepEqual(again, await first);
    const unknown = generateKey();
    await ring.authenticate(unknown);
    assert.deepEqual(ring.authenticate(unknown), { kind: 'unknown' }, 'a cached miss is answered at once too');
    assert.throws(() => ring.identify({ 'x-api-key': unknown }), rejectsWith('GW_ERR_AUTH_INVALID_KEY'));
  });
});

describe('presentedKey', () => {
  function throwsCode(headers: Record<string, string | string[] | undefined>, code: ErrorCode): void {
    assert.throws(() => presentedKey(headers), rejectsWith(code));
  }

  it('reads Authorization: Bearer, any case, trimmed', () => {
    assert.equal(presentedKey({ authorization: 'Bearer sk-one' }), 'sk-one');
    assert.equal(presentedKey({ authorization: 'bearer sk-one' }), 'sk-one');
    assert.equal(presentedKey({ authorization: '  BEARER   sk-one  ' }), 'sk-one');
  });

  it('reads x-api-key, trimmed, and the first value of a repeated header', () => {
    assert.equal(presentedKey({ 'x-api-key': 'sk-two' }), 'sk-two');
    assert.equal(presentedKey({ 'x-api-key': ' sk-two ' }), 'sk-two');
    assert.equal(presentedKey({ 'x-api-key': ['sk-first', 'sk-second'] }), 'sk-first');
    assert.equal(presentedKey({ authorization: ['Bearer sk-a', 'Bearer sk-b'] }), 'sk-a');
  });

  it('accepts both headers when they name the same key', () => {
    assert.equal(presentedKey({ authorization: 'Bearer sk-same', 'x-api-key': 'sk-same' }), 'sk-same');
    assert.equal(presentedKey({ authorization: 'Bearer sk-same', 'x-api-key': '' }), 'sk-same');
  });

  it('rejects two different keys with GW_ERR_AUTH_KEY_CONFLICT', () => {
    throwsCode({ authorization: 'Bearer sk-one', 'x-api-key': 'sk-two' }, 'GW_ERR_AUTH_KEY_CONFLICT');
  });

  it('rejects a missing key with GW_ERR_AUTH_MISSING_KEY', () => {
    throwsCode({}, 'GW_ERR_AUTH_MISSING_KEY');
    throwsCode({ authorization: undefined, 'x-api-key': undefined }, 'GW_ERR_AUTH_MISSING_KEY');
    throwsCode({ 'x-api-key': '   ' }, 'GW_ERR_AUTH_MISSING_KEY');
    throwsCode({ authorization: 'Bearer' }, 'GW_ERR_AUTH_MISSING_KEY');
    throwsCode({ authorization: 'Bearer    ' }, 'GW_ERR_AUTH_MISSING_KEY');
    throwsCode({ authorization: 'Basic dXNlcjpwYXNz' }, 'GW_ERR_AUTH_MISSING_KEY');
  });

  it('falls back to x-api-key when Authorization is not a Bearer credential', () => {
    assert.equal(presentedKey({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'sk-three' }), 'sk-three');
  });
});
