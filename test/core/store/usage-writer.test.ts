import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Store, UsageRecord, UsageStore } from '../../../core/store/store.js';
import { UsageJournal } from '../../../core/store/usage-journal.js';
import { UsageWriter } from '../../../core/store/usage-writer.js';
import { makeUsage, useTempStore } from './store-fixtures.js';

/** A usage store that counts insertUsage calls, can fail the first `failures` of them, and records what was written. */
class ObservedStore implements Pick<UsageStore, 'insertUsage'> {
  calls = 0;
  concurrent = 0;
  maxConcurrent = 0;
  written: UsageRecord[] = [];

  constructor(
    private readonly inner: Store,
    private failures = 0,
  ) {}

  async insertUsage(records: readonly UsageRecord[]): Promise<void> {
    this.calls++;
    this.concurrent++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.concurrent);
    try {
      await new Promise((r) => setImmediate(r));
      if (this.failures > 0) {
        this.failures--;
        throw new Error('disk on fire');
      }
      await this.inner.insertUsage(records);
      this.written.push(...records);
    } finally {
      this.concurrent--;
    }
  }

  failForever(): void {
    this.failures = Number.POSITIVE_INFINITY;
  }

  migrate = (): Promise<void> => this.inner.migrate();
  listUsage: Store['listUsage'] = (q) => this.inner.listUsage(q);
  countUsage = (): Promise<number> => this.inner.countUsage();
  createKey: Store['createKey'] = (k) => this.inner.createKey(k);
  findKeyByHash: Store['findKeyByHash'] = (h) => this.inner.findKeyByHash(h);
  listKeys: Store['listKeys'] = () => this.inner.listKeys();
  revokeKey: Store['revokeKey'] = (k, at) => this.inner.revokeKey(k, at);
  close = (): Promise<void> => this.inner.close();
}

/** Polls without asserting how long it takes; the deadline only keeps a broken test from hanging. */
async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function records(count: number, from = 0): UsageRecord[] {
  return Array.from({ length: count }, (_, i) => makeUsage({ requestId: `r${from + i}`, ts: from + i }));
}

const NEVER = 3_600_000;

describe('UsageWriter', () => {
  const temp = useTempStore('writer.db');

  it('writes a burst in full batches without an explicit flush', async () => {
    const store = new ObservedStore(temp.get());
    const writer = new UsageWriter(store, { flushIntervalMs: NEVER, maxBatch: 1000 });
    for (const r of records(2500)) writer.add(r);
    assert.equal(store.calls, 0, 'add() must not write synchronously');
    assert.equal(writer.pending, 2500);

    await waitFor(() => store.written.length >= 2000, 'the full batches');
    await writer.close();
    assert.equal(await temp.get().countUsage(), 2500);
    assert.ok(store.calls <= 3, `expected at most 3 inserts, got ${store.calls}`);
    assert.equal(writer.pending, 0);
  });

  it('flushes on the timer', async () => {
    const store = new ObservedStore(temp.get());
    const writer = new UsageWriter(store, { flushIntervalMs: 10 });
    for (const r of records(3)) writer.add(r);
    await waitFor(() => store.written.length === 3, 'the timer flush');
    assert.equal(await temp.get().countUsage(), 3);
    await writer.close();
  });

  it('requeues a failed batch in order, reports it, and retries on the next tick', async () => {
    const store = new ObservedStore(temp.get(), 2);
    const errors: number[] = [];
    const writer = new UsageWriter(store, {
      flushIntervalMs: 10,
      maxBatch: 4,
      onError: (_err, pending) => errors.push(pending),
    });
    const all = records(10);
    for (const r of all.slice(0, 6)) writer.add(r);
    await waitFor(() => errors.length >= 1, 'the first failure');
    for (const r of all.slice(6)) writer.add(r);

    await waitFor(() => writer.pending === 0, 'the retries');
    assert.equal(errors.length, 2);
    assert.ok(errors.every((pending) => pending >= 6));
    assert.deepEqual(
      store.written.map((r) => r.requestId),
      all.map((r) => r.requestId),
    );
    assert.equal(await temp.get().countUsage(), 10);
    await writer.close();
  });

  it('tells onWritten each batch once it is written, never one that failed', async () => {
    const store = new ObservedStore(temp.get(), 1);
    const told: string[][] = [];
    const writer = new UsageWriter(store, { flushIntervalMs: NEVER, maxBatch: 3, onError: () => {}, onWritten: (batch) => told.push(batch.map((r) => r.requestId)) });
    for (const r of records(5)) writer.add(r);
    await assert.rejects(writer.flush(), /disk on fire/);
    assert.deepEqual(told, [], 'the failed batch is not written');
    await writer.flush();
    assert.deepEqual(told, [
      ['r0', 'r1', 'r2'],
      ['r3', 'r4'],
    ]);
    await writer.close();
  });

  it('rejects an explicit flush that fails, keeping the records', async () => {
    const store = new ObservedStore(temp.get(), 1);
    const writer = new UsageWriter(store, { flushIntervalMs: NEVER, onError: () => {} });
    for (const r of records(5)) writer.add(r);
    await assert.rejects(writer.flush(), /disk on fire/);
    assert.equal(writer.pending, 5);
    await writer.flush();
    assert.equal(writer.pending, 0);
    assert.equal(await temp.get().countUsage(), 5);
    await writer.close();
  });

  it('runs one flush at a time and flushes what arrived meanwhile', async () => {
    const store = new ObservedStore(temp.get());
    const writer = new UsageWriter(store, { flushIntervalMs: NEVER, maxBatch: 2 });
    for (const r of records(3)) writer.add(r);
    const first = writer.flush();
    for (const r of records(3, 3)) writer.add(r);
    const second = writer.flush();
    const third = writer.flush();
    await Promise.all([first, second, third]);
    assert.equal(store.maxConcurrent, 1);
    assert.equal(writer.pending, 0);
    assert.deepEqual(
      store.written.map((r) => r.ts),
      [0, 1, 2, 3, 4, 5],
    );
    await writer.close();
  });

  it('close() writes everything queued, and add() afterwards throws', async () => {
    const store = new ObservedStore(temp.get());
    const writer = new UsageWriter(store, { flushIntervalMs: NEVER });
    for (const r of records(10)) writer.add(r);
    await writer.close();
    assert.equal(await temp.get().countUsage(), 10);
    assert.throws(() => writer.add(makeUsage()), /closed/);
    await writer.close();
  });

  it('close() retries a failing store before giving up', async () => {
    const store = new ObservedStore(temp.get(), 2);
    const writer = new UsageWriter(store, { flushIntervalMs: NEVER, onError: () => {} });
    for (const r of records(4)) writer.add(r);
    await writer.close();
    assert.equal(await temp.get().countUsage(), 4);
  });

  it('close() throws when the store keeps failing, and keeps the records', async () => {
    const store = new ObservedStore(temp.get());
    store.failForever();
    const errors: unknown[] = [];
    const writer = new UsageWriter(store, { flushIntervalMs: NEVER, onError: (err) => errors.push(err) });
    for (const r of records(7)) writer.add(r);
    await assert.rejects(writer.close(), (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /7 usage records unwritten/);
      assert.ok(err.cause instanceof Error);
      return true;
    });
    assert.equal(writer.pending, 7);
    assert.ok(errors.length >= 2);
    assert.equal(await temp.get().countUsage(), 0);
  });
});

describe('UsageWriter with a journal', () => {
  const temp = useTempStore('writer.db');
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-writer-journal-'));
    path = join(dir, 'journal.db');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('journals what a down store refuses, closes with nothing lost, and a later writer writes it once, in order', async () => {
    const down = new ObservedStore(temp.get());
    down.failForever();
    const journal = new UsageJournal(path);
    const writer = new UsageWriter(down, { flushIntervalMs: NEVER, maxBatch: 4, journal, onError: () => {} });
    const all = records(23);
    for (const r of all.slice(0, 10)) writer.add(r);
    await assert.rejects(writer.flush(), /disk on fire/);
    // The failed batch and the rest of the queue are on disk now, not in memory.
    assert.equal(journal.size, 10);
    assert.equal(writer.pending, 10);
    // While the journal has records, new ones join its end at the next drain.
    for (const r of all.slice(10, 20)) writer.add(r);
    assert.equal(writer.pending, 20);
    await assert.rejects(writer.flush(), /disk on fire/);
    assert.equal(journal.size, 20);
    for (const r of all.slice(20)) writer.add(r);
    await writer.close();
    assert.equal(writer.pending, 23);
    assert.equal(await temp.get().countUsage(), 0);

    const up = new ObservedStore(temp.get());
    const told: string[] = [];
    const reopened = new UsageJournal(path);
    assert.equal(reopened.size, 23);
    const next = new UsageWriter(up, { flushIntervalMs: NEVER, maxBatch: 4, journal: reopened, onWritten: (batch) => told.push(...batch.map((r) => r.requestId)) });
    next.add(makeUsage({ requestId: 'after', ts: 99 }));
    await next.flush();
    const expected = [...all.map((r) => r.requestId), 'after'];
    assert.deepEqual(
      up.written.map((r) => r.requestId),
      expected,
    );
    assert.deepEqual(told, expected);
    assert.equal(reopened.size, 0);
    assert.equal(next.pending, 0);
    await next.close();
    const stored = await temp.get().listUsage({ limit: 100 });
    assert.deepEqual(stored.map((r) => r.requestId).sort(), [...expected].sort());
  });

  it('writes a journaled batch again harmlessly when it was written but not removed', async () => {
    const journal = new UsageJournal(path);
    journal.append(records(3));
    await temp.get().insertUsage(records(2));
    const writer = new UsageWriter(new ObservedStore(temp.get()), { flushIntervalMs: NEVER, journal });
    await writer.close();
    assert.equal(await temp.get().countUsage(), 3);
  });

  it('is saturated when the journal reaches journalMax, and drains it on the timer once the store answers', async () => {
    const store = new ObservedStore(temp.get(), 1);
    const journal = new UsageJournal(path);
    const writer = new UsageWriter(store, { flushIntervalMs: 10, highWaterMark: 1000, journal, journalMax: 5, onError: () => {} });
    for (const r of records(5)) writer.add(r);
    assert.equal(writer.saturated, false, 'five in memory are below the high-water mark');
    await waitFor(() => store.calls >= 1, 'the failed write');
    await waitFor(() => writer.pending === 0, 'the retry from the journal');
    assert.equal(writer.saturated, false);
    assert.equal(await temp.get().countUsage(), 5);
    await writer.close();

    const full = new UsageJournal(path);
    full.append(records(5, 100));
    const stuck = new ObservedStore(temp.get());
    stuck.failForever();
    const saturated = new UsageWriter(stuck, { flushIntervalMs: NEVER, journal: full, journalMax: 5, onError: () => {} });
    assert.equal(saturated.saturated, true);
    assert.equal(saturated.pending, 5);
    await saturated.close();
  });

  it('close() throws when the journal cannot be written, keeping the records in memory', async () => {
    const store = new ObservedStore(temp.get());
    store.failForever();
    const journal = new UsageJournal(path);
    journal.close();
    const writer = new UsageWriter(store, { flushIntervalMs: NEVER, journal, onError: () => {} });
    for (const r of records(3)) writer.add(r);
    await assert.rejects(writer.close(), /3 usage records unwritten/);
    assert.equal(writer.pending, 3);
  });
});
