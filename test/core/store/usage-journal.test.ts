import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { UsageRecord } from '../../../core/store/store.js';
import { decodeJournalRecord, encodeJournalRecord, UsageJournal } from '../../../core/store/usage-journal.js';
import { makeUsage } from './store-fixtures.js';

/** Every optional field present, money past 2^53 (a number would round it). */
const FULL: UsageRecord = makeUsage({
  requestId: 'req-full',
  upstreamModel: null,
  channel: null,
  errorCode: 'GW_ERR_UPSTREAM',
  ttftMs: null,
  aborted: true,
  images: 2,
  inputImageTokens: 10,
  outputImageTokens: 20,
  seconds: 5,
  cost: 9_007_199_254_740_993_123n,
  priceVersion: 'v7',
  account: 'acme',
  usageEstimated: true,
  draws: [
    { holdId: 'h1', amount: 1n },
    { holdId: 'h2', amount: 9_007_199_254_740_993n, spendId: 'config:a@2026-11-29T23:00:00.000Z' },
  ],
});

describe('journal codec', () => {
  it('reads back every field exactly, bigints included', () => {
    const back = decodeJournalRecord(encodeJournalRecord(FULL));
    assert.deepEqual(back, FULL);
    assert.equal(typeof back.cost, 'bigint');
    assert.equal(typeof back.draws?.[1]?.amount, 'bigint');
  });

  it('leaves absent optional fields absent', () => {
    const bare = makeUsage();
    const back = decodeJournalRecord(encodeJournalRecord(bare));
    assert.deepEqual(back, bare);
    for (const field of ['images', 'inputImageTokens', 'outputImageTokens', 'seconds', 'cost', 'priceVersion', 'account', 'usageEstimated', 'draws']) {
      assert.equal(field in back, false, field);
    }
  });

  it('keeps a zero cost and an empty draw list', () => {
    const record = makeUsage({ cost: 0n, draws: [] });
    assert.deepEqual(decodeJournalRecord(encodeJournalRecord(record)), record);
  });
});

describe('UsageJournal', () => {
  let dir: string;
  let path: string;
  const opened: UsageJournal[] = [];
  const open = (): UsageJournal => {
    const journal = new UsageJournal(path);
    opened.push(journal);
    return journal;
  };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-journal-'));
    path = join(dir, 'nested', 'journal.db');
  });
  afterEach(async () => {
    for (const journal of opened.splice(0)) journal.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('appends, peeks oldest first and removes through a seq', () => {
    const journal = open();
    assert.equal(journal.size, 0);
    journal.append([makeUsage({ requestId: 'a' }), makeUsage({ requestId: 'b' })]);
    journal.append([FULL]);
    assert.equal(journal.size, 3);
    const first = journal.peek(2);
    assert.deepEqual(
      first.map((e) => e.record.requestId),
      ['a', 'b'],
    );
    journal.remove((first[1] as { seq: number }).seq);
    assert.equal(journal.size, 1);
    assert.deepEqual(
      journal.peek(10).map((e) => e.record),
      [FULL],
    );
    journal.append([]);
    assert.equal(journal.size, 1);
  });

  it('keeps its records across a close and a reopen', () => {
    const first = open();
    first.append([makeUsage({ requestId: 'a' }), FULL]);
    first.close();
    const second = open();
    assert.equal(second.size, 2);
    assert.deepEqual(
      second.peek(10).map((e) => e.record),
      [makeUsage({ requestId: 'a' }), FULL],
    );
  });

  it('refuses a second open of the same file, naming the path and the setting', () => {
    const first = open();
    first.append([makeUsage()]);
    assert.throws(
      () => open(),
      (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.ok(err.message.includes(path), err.message);
        assert.match(err.message, /store\.journal_path/);
        return true;
      },
    );
    // The first is unharmed, and once closed the file opens again.
    first.append([makeUsage({ requestId: 'req-2' })]);
    first.close();
    assert.equal(open().size, 2);
  });

  it('refuses a second open even of an empty journal', () => {
    open();
    assert.throws(() => open(), /in use by another gateway instance/);
  });
});
