// Affinity bindings: the in-process store (get/set, per-entry TTL renewed on use, LRU eviction at max_entries)
// and the table key (route, caller key id, model and conversation all keep bindings apart).

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { affinityKey, type AffinityBinding } from '../../../core/routing/affinity.js';
import { MemoryAffinityStore } from '../../../core/routing/memory-affinity.js';

const A: AffinityBinding = { channel: 'a', keyIndex: 0 };
const B: AffinityBinding = { channel: 'b', keyIndex: 1 };
const C: AffinityBinding = { channel: 'c', keyIndex: 0 };
const HOUR = 3_600_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('MemoryAffinityStore: get and set', () => {
  it('has nothing for a key never set', async () => {
    const store = new MemoryAffinityStore(10);
    assert.equal(await store.get('nope'), null);
    assert.equal(store.size, 0);
  });

  it('returns what was set, per key', async () => {
    const store = new MemoryAffinityStore(10);
    await store.set('k1', A, HOUR);
    await store.set('k2', B, HOUR);
    assert.deepEqual(await store.get('k1'), A);
    assert.deepEqual(await store.get('k2'), B);
    assert.equal(store.size, 2);
  });

  it('is visible to get() as soon as set() was called, before its promise is awaited', async () => {
    // The relay does not await set(): the next request of the conversation must still see the binding.
    const store = new MemoryAffinityStore(10);
    const pending = store.set('k', A, HOUR);
    assert.deepEqual(await store.get('k'), A);
    await pending;
  });

  it('set() replaces the binding of a key instead of adding a second one', async () => {
    const store = new MemoryAffinityStore(10);
    await store.set('k', A, HOUR);
    await store.set('k', B, HOUR);
    assert.deepEqual(await store.get('k'), B);
    assert.equal(store.size, 1);
  });

  it('close() drops every binding', async () => {
    const store = new MemoryAffinityStore(10);
    await store.set('k1', A, HOUR);
    await store.set('k2', B, HOUR);
    await store.close();
    assert.equal(store.size, 0);
    assert.equal(await store.get('k1'), null);
  });
});

describe('MemoryAffinityStore: LRU eviction at max_entries', () => {
  it('keeps at most max_entries bindings, dropping the oldest', async () => {
    const store = new MemoryAffinityStore(2);
    await store.set('k1', A, HOUR);
    await store.set('k2', B, HOUR);
    await store.set('k3', C, HOUR);
    assert.equal(store.size, 2);
    assert.equal(await store.get('k1'), null, 'the least recently used binding went');
    assert.deepEqual(await store.get('k2'), B);
    assert.deepEqual(await store.get('k3'), C);
  });

  it('a get() makes a binding recently used: the other one goes first', async () => {
    const store = new MemoryAffinityStore(2);
    await store.set('k1', A, HOUR);
    await store.set('k2', B, HOUR);
    assert.deepEqual(await store.get('k1'), A);
    await store.set('k3', C, HOUR);
    assert.deepEqual(await store.get('k1'), A);
    assert.equal(await store.get('k2'), null);
    assert.deepEqual(await store.get('k3'), C);
  });

  it('replacing a binding does not evict another one', async () => {
    const store = new MemoryAffinityStore(2);
    await store.set('k1', A, HOUR);
    await store.set('k2', B, HOUR);
    await store.set('k1', C, HOUR);
    assert.equal(store.size, 2);
    assert.deepEqual(await store.get('k1'), C);
    assert.deepEqual(await store.get('k2'), B);
  });

  it('max_entries 1 keeps only the last conversation', async () => {
    const store = new MemoryAffinityStore(1);
    await store.set('k1', A, HOUR);
    await store.set('k2', B, HOUR);
    assert.equal(await store.get('k1'), null);
    assert.deepEqual(await store.get('k2'), B);
  });
});

describe('MemoryAffinityStore: TTL on a controlled clock', () => {
  // lru-cache reads time through the global `performance.now()`; mocking it pins every age exactly.
  // lru-cache also caches the value it read for `ttlResolution` (1 ms of real time), so each step waits a few
  // real milliseconds after moving the clock, which lets that 1 ms timer clear the cached reading first.
  let clock = 0;
  beforeEach(() => {
    clock = 1_000_000; // not 0: lru-cache treats a start time of 0 as "no TTL"
    mock.method(performance, 'now', () => clock);
  });
  afterEach(() => {
    mock.restoreAll();
  });

  async function advance(ms: number): Promise<void> {
    clock += ms;
    await sleep(5);
  }

  it('a binding lives exactly its TTL, then get() finds nothing and the entry is gone', async () => {
    const store = new MemoryAffinityStore(10);
    await store.set('k', A, 1_000);
    await advance(1_000);
    assert.deepEqual(await store.get('k'), A, 'alive at its TTL');
    // That get() renewed it (updateAgeOnGet): it now lives 1000 ms from here.
    await advance(1_001);
    assert.equal(await store.get('k'), null, 'expired 1 ms past its TTL');
    assert.equal(store.size, 0, 'an expired entry is removed when read');
  });

  it('each get() renews the TTL: a conversation in use never expires', async () => {
    const store = new MemoryAffinityStore(10);
    await store.set('k', A, 1_000);
    for (let i = 0; i < 5; i++) {
      await advance(600);
      assert.deepEqual(await store.get('k'), A, `alive after ${(i + 1) * 600} ms with a use every 600 ms`);
    }
    await advance(1_001);
    assert.equal(await store.get('k'), null, 'unused for longer than its TTL: gone');
  });

  it('each set() renews the TTL too', async () => {
    const store = new MemoryAffinityStore(10);
    await store.set('k', A, 1_000);
    await advance(600);
    await store.set('k', B, 1_000);
    await advance(600);
    assert.deepEqual(await store.get('k'), B, '1200 ms after the first set, 600 ms after the second');
  });

  it('the TTL is per binding: one expires, the other stays', async () => {
    const store = new MemoryAffinityStore(10);
    await store.set('short', A, 100);
    await store.set('long', B, 10_000);
    await advance(101);
    assert.equal(await store.get('short'), null);
    assert.deepEqual(await store.get('long'), B);
  });

  it('a TTL longer than the cache-wide default of one hour is honoured', async () => {
    const store = new MemoryAffinityStore(10);
    await store.set('k', A, 24 * HOUR);
    await advance(2 * HOUR);
    assert.deepEqual(await store.get('k'), A, 'alive 2 h into a 24 h TTL');
  });

  it('a TTL shorter than the default one hour is honoured', async () => {
    const store = new MemoryAffinityStore(10);
    await store.set('k', A, 60_000);
    await advance(60_001);
    assert.equal(await store.get('k'), null);
  });

  it('an expired binding does not count against max_entries once read', async () => {
    const store = new MemoryAffinityStore(2);
    await store.set('old', A, 100);
    await store.set('k2', B, 10_000);
    await advance(101);
    assert.equal(await store.get('old'), null);
    await store.set('k3', C, 10_000);
    assert.deepEqual(await store.get('k2'), B, 'k2 was not pushed out: the expired entry made room');
    assert.deepEqual(await store.get('k3'), C);
  });
});

describe('MemoryAffinityStore: TTL in real time', () => {
  it('a binding with a 20 ms TTL is gone 50 ms later', async () => {
    const store = new MemoryAffinityStore(10);
    await store.set('k', A, 20);
    await sleep(50); // a timer never fires early; a get() before the expiry would renew the binding
    assert.equal(await store.get('k'), null);
  });
});

describe('affinityKey', () => {
  const route = 'anthropic-messages'; // the format name
  const conversation = JSON.stringify({ device_id: 'd'.repeat(64), account_uuid: '', session_id: '5b7c2e1a-0000-4000-8000-000000000001' });

  it('is the same for the same format, caller, model and conversation', () => {
    assert.equal(affinityKey(route, 'config:tester', 'claude-sonnet-4-5', conversation), affinityKey(route, 'config:tester', 'claude-sonnet-4-5', conversation));
  });

  it('differs by caller key id: one tenant cannot reach another tenant\'s binding', () => {
    assert.notEqual(affinityKey(route, 'config:tester', 'claude-sonnet-4-5', conversation), affinityKey(route, 'config:other', 'claude-sonnet-4-5', conversation));
    assert.notEqual(affinityKey(route, '', 'claude-sonnet-4-5', conversation), affinityKey(route, 'config:tester', 'claude-sonnet-4-5', conversation));
  });

  it('differs by model', () => {
    assert.notEqual(affinityKey(route, 'config:tester', 'claude-sonnet-4-5', conversation), affinityKey(route, 'config:tester', 'claude-haiku-4-5', conversation));
  });

  it('differs by format', () => {
    assert.notEqual(affinityKey('anthropic-messages', 'k', 'm', 'c'), affinityKey('openai-chat', 'k', 'm', 'c'));
    assert.notEqual(affinityKey('openai-chat', 'k', 'm', 'c'), affinityKey('openai-responses', 'k', 'm', 'c'));
  });

  it('differs by conversation, even when two conversations differ only in their session id', () => {
    const other = conversation.replace('0001', '0002');
    assert.notEqual(affinityKey(route, 'k', 'm', conversation), affinityKey(route, 'k', 'm', other));
  });

  it('part boundaries are unambiguous: moving characters from one part to the next gives another key', () => {
    const keys = [
      affinityKey('anthropic-messages', 'ab', 'c', 'd'),
      affinityKey('anthropic-messages', 'a', 'bc', 'd'),
      affinityKey('anthropic-messages', 'a', 'b', 'cd'),
      affinityKey('anthropic-messages', 'abc', '', 'd'),
      affinityKey('anthropic-messages', '', 'abc', 'd'),
      affinityKey('anthropic-messages', 'a', '', 'bcd'),
    ];
    assert.equal(new Set(keys).size, keys.length);
  });

  it('keeps bindings apart in the store: another caller, model or format finds nothing', async () => {
    const store = new MemoryAffinityStore(10);
    await store.set(affinityKey(route, 'config:tester', 'claude-sonnet-4-5', conversation), A, HOUR);
    assert.deepEqual(await store.get(affinityKey(route, 'config:tester', 'claude-sonnet-4-5', conversation)), A);
    assert.equal(await store.get(affinityKey(route, 'config:other', 'claude-sonnet-4-5', conversation)), null);
    assert.equal(await store.get(affinityKey(route, 'config:tester', 'claude-haiku-4-5', conversation)), null);
    assert.equal(await store.get(affinityKey('openai-chat', 'config:tester', 'claude-sonnet-4-5', conversation)), null);
  });
});
