// Video tasks in the store (store/video-task-store.ts), on SQLite and PostgreSQL: a row round trip (money past 2^53,
// holds, key fingerprint, recorded_at), changes refused once settled, one settlement of racing ones (its holds
// released with it), discarding an unsent task, the recorder's unrecorded tasks, stray task holds, the pollers'
// leases (a submitter's lease at insert, claimDue's due, free and limit rules, two concurrent pollers never sharing a
// task, claimTask, releaseLease), a key's keyset pages and an account's pages.

import assert from 'node:assert/strict';
import { VIDEO_TASKS } from './store-part.js';
import { describe, it } from 'node:test';
import type { Budget } from '../../core/store/ledger-store.js';
import type { Store } from '../../core/store/store.js';
import type { VideoTaskRow, VideoTaskSettlement } from './video-task-store.js';
import { storeBackends } from '../../test/helpers/test-stores.js';
import { useTempStore } from '../../test/core/store/store-fixtures.js';

const T0 = 1_700_000_000_000;
const BIG = 9_007_199_254_740_993n; // 2^53 + 1: lost by a double.

function task(id: string, overrides: Partial<VideoTaskRow> = {}): VideoTaskRow {
  const row: VideoTaskRow = {
    id,
    keyId: 'ka',
    keyName: 'alice',
    account: 'acme',
    group: 'pro',
    channel: 'ark',
    upstreamId: null,
    model: 'seedance',
    upstreamModel: 'doubao-seedance-1-0-pro',
    shape: 'openai',
    status: 'submitting',
    progress: 0,
    prompt: 'a cat on a skateboard',
    seconds: 5,
    size: '1280x720',
    resultUrl: null,
    errorCode: null,
    errorMessage: null,
    createdAt: T0,
    updatedAt: T0,
    completedAt: null,
    expiresAt: T0 + 86_400_000,
    reserved: 1_000_000_000n,
    holds: [{ holdId: 'h1', amount: 1_000_000_000n }],
    totalTokens: null,
    cost: null,
    settledAt: null,
    nextPollAt: T0,
    polls: 0,
    keyFingerprint: null,
    recordedAt: null,
    priceVersion: null,
  };
  return Object.assign(row, overrides);
}

function settlement(at: number, overrides: Partial<VideoTaskSettlement> = {}): VideoTaskSettlement {
  const end: VideoTaskSettlement = {
    status: 'succeeded',
    progress: 100,
    resultUrl: 'https://ark.example/video.mp4',
    errorCode: null,
    errorMessage: null,
    totalTokens: 108_900,
    seconds: null,
    cost: 750_000_000n,
    priceVersion: 'pv-test-0001',
    at,
  };
  return Object.assign(end, overrides);
}

const ids = (rows: readonly VideoTaskRow[]): string[] => rows.map((r) => r.id);

const acme: Budget = { kind: 'account', account: 'acme' };

/** Money for holds: the account, credited. */
async function fund(store: Store): Promise<void> {
  await store.ledger.createAccount('acme', null, T0);
  await store.ledger.post({ account: 'acme', kind: 'credit', amount: 1_000_000n, idempotencyKey: 'fund', ts: T0 });
}

async function hold(store: Store, owner: string): Promise<string> {
  const result = await store.ledger.acquireHold({ budget: acme, min: 10n, want: 10n, owner, now: T0, expiresAt: T0 + 86_400_000 });
  assert.ok(result.granted, `a hold for ${owner}`);
  return result.holdId;
}

/** Whether `owner`'s hold `holdId` is still there: renewHolds renews only the live holds it finds. */
async function held(store: Store, owner: string, holdId: string): Promise<boolean> {
  return (await store.ledger.renewHolds(owner, [{ id: holdId, budget: acme }], T0, T0 + 86_400_000)).renewed.has(holdId);
}

for (const backend of storeBackends()) describe(`video task store (${backend.name})`, { skip: backend.skip }, () => {
  const temp = useTempStore('video-tasks.db', backend);

  it('reads a task back as written: money past 2^53 exactly, its holds, its nulls', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    const row = task('video_1', { reserved: BIG, holds: [{ holdId: 'h-acct', amount: BIG }, { holdId: 'h-key', amount: 7n }], account: null, shape: 'generations' });
    await videoTasks.addTask(row);
    assert.deepEqual(await videoTasks.task('video_1'), row);
    const done = task('video_2', { status: 'succeeded', completedAt: T0 + 5, settledAt: T0 + 5, cost: BIG, totalTokens: 3_000_000_000, holds: [], prompt: null, seconds: null, size: null });
    await videoTasks.addTask(done);
    assert.deepEqual(await videoTasks.task('video_2'), done);
    const recorded = task('video_3', { upstreamId: 'cgt-3', keyFingerprint: '0123456789abcdef', status: 'failed', settledAt: T0 + 5, cost: 0n, recordedAt: T0 + 6 });
    await videoTasks.addTask(recorded);
    assert.deepEqual(await videoTasks.task('video_3'), recorded);
    assert.equal(await videoTasks.task('video_none'), undefined);
  });

  it('sets the key fingerprint, the reservation and the holds a submission names', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    await videoTasks.addTask(task('video_1', { reserved: 0n, holds: [] }));
    const holds = [{ holdId: 'h-acct', amount: BIG }, { holdId: 'h-key', amount: 3n }];
    assert.equal(await videoTasks.updateTask('video_1', { keyFingerprint: 'fedcba9876543210', reserved: BIG, holds, updatedAt: T0 + 1 }), true);
    assert.deepEqual(await videoTasks.task('video_1'), task('video_1', { keyFingerprint: 'fedcba9876543210', reserved: BIG, holds, updatedAt: T0 + 1 }));
    assert.equal(await videoTasks.updateTask('video_1', { progress: 5, updatedAt: T0 + 2 }), true);
    const kept = await videoTasks.task('video_1');
    assert.deepEqual([kept?.keyFingerprint, kept?.reserved, kept?.holds], ['fedcba9876543210', BIG, holds], 'unnamed, they stay');
  });

  it('rounds fractional seconds to the integer column, on insert and on settlement', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    await videoTasks.addTask(task('video_1', { seconds: 4.6 }));
    assert.equal((await videoTasks.task('video_1'))?.seconds, 5);
    assert.equal(await videoTasks.settleTask('video_1', settlement(T0 + 1, { seconds: 5.04 })), true);
    assert.equal((await videoTasks.task('video_1'))?.seconds, 5);
  });

  it('changes an unsettled task, refuses to once it is settled, and settles once', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    await videoTasks.addTask(task('video_1'));
    assert.equal(await videoTasks.updateTask('video_1', { upstreamId: 'cgt-1', status: 'running', progress: 40, nextPollAt: T0 + 10, polls: 2, updatedAt: T0 + 1 }), true);
    const running = await videoTasks.task('video_1');
    assert.deepEqual([running?.upstreamId, running?.status, running?.progress, running?.nextPollAt, running?.polls, running?.updatedAt], ['cgt-1', 'running', 40, T0 + 10, 2, T0 + 1]);
    assert.equal(await videoTasks.updateTask('video_1', { progress: 50, updatedAt: T0 + 2 }), true, 'only the fields named');
    assert.equal((await videoTasks.task('video_1'))?.status, 'running');

    assert.equal(await videoTasks.settleTask('video_1', settlement(T0 + 3)), true);
    assert.equal(await videoTasks.settleTask('video_1', settlement(T0 + 4, { status: 'failed', cost: 0n })), false);
    assert.equal(await videoTasks.updateTask('video_1', { status: 'running', progress: 10, updatedAt: T0 + 5 }), false);
    const settled = await videoTasks.task('video_1');
    assert.deepEqual(
      [settled?.status, settled?.progress, settled?.resultUrl, settled?.totalTokens, settled?.cost, settled?.settledAt, settled?.completedAt, settled?.updatedAt, settled?.seconds],
      ['succeeded', 100, 'https://ark.example/video.mp4', 108_900, 750_000_000n, T0 + 3, T0 + 3, T0 + 3, 5],
      'the first settlement, the seconds asked for kept when it says none',
    );
    assert.equal(settled?.priceVersion, 'pv-test-0001');
    assert.equal(await videoTasks.updateTask('video_none', { progress: 1, updatedAt: T0 }), false);
    assert.equal(await videoTasks.settleTask('video_none', settlement(T0)), false);

    await videoTasks.addTask(task('video_2'));
    assert.equal(await videoTasks.settleTask('video_2', settlement(T0 + 3, { status: 'failed', resultUrl: null, errorCode: 'OutputVideoSensitiveContentDetected', errorMessage: 'no', totalTokens: null, seconds: 10, cost: 0n })), true);
    const failed = await videoTasks.task('video_2');
    assert.deepEqual([failed?.status, failed?.errorCode, failed?.errorMessage, failed?.seconds, failed?.cost, failed?.totalTokens], ['failed', 'OutputVideoSensitiveContentDetected', 'no', 10, 0n, null]);
  });

  it('lets exactly one of five concurrent settlements through', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    await videoTasks.addTask(task('video_1'));
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => videoTasks.settleTask('video_1', settlement(T0 + 10 + i, { cost: BigInt(i + 1) }))));
    assert.equal(results.filter(Boolean).length, 1);
    const winner = results.indexOf(true);
    const settled = await videoTasks.task('video_1');
    assert.deepEqual([settled?.cost, settled?.settledAt], [BigInt(winner + 1), T0 + 10 + winner], 'the row is the winner\'s');
  });

  it('settles a task and releases its holds in one go, only for the settlement that wins', async () => {
    const store = temp.get();
    const videoTasks = store.part(VIDEO_TASKS);
    await fund(store);
    await videoTasks.addTask(task('video_a-_%1'));
    await videoTasks.addTask(task('video_b'));
    const mine = [await hold(store, 'task:video_a-_%1'), await hold(store, 'task:video_a-_%1')];
    const other = await hold(store, 'task:video_b');
    const instance = await hold(store, 'instance-1');
    const lookalike = await hold(store, 'task:video_a-_%10');

    assert.equal(await videoTasks.settleTask('video_a-_%1', settlement(T0 + 1)), true);
    for (const id of mine) assert.equal(await held(store, 'task:video_a-_%1', id), false, 'the task\'s holds went with it');
    assert.equal(await held(store, 'task:video_b', other), true, 'another task\'s stays');
    assert.equal(await held(store, 'instance-1', instance), true, 'an instance\'s stays');
    assert.equal(await held(store, 'task:video_a-_%10', lookalike), true, 'an id it is a prefix of is another task');

    // A hold taken after the settlement (a crash's leftover) is not the losing settlement's to release.
    const late = await hold(store, 'task:video_a-_%1');
    assert.equal(await videoTasks.settleTask('video_a-_%1', settlement(T0 + 2, { status: 'failed', cost: 0n })), false);
    assert.equal(await held(store, 'task:video_a-_%1', late), true, 'a losing settlement deletes nothing');
    assert.equal(await videoTasks.settleTask('video_none', settlement(T0 + 2)), false);
  });

  it('discards only a task nothing was sent for and that is unsettled', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    await videoTasks.addTask(task('unsent'));
    await videoTasks.addTask(task('sent', { upstreamId: 'cgt-1', status: 'queued' }));
    await videoTasks.addTask(task('settled'));
    await videoTasks.settleTask('settled', settlement(T0 + 1, { status: 'expired', resultUrl: null, cost: 0n }));
    assert.equal(await videoTasks.discardTask('unsent'), true);
    assert.equal(await videoTasks.task('unsent'), undefined);
    assert.equal(await videoTasks.discardTask('unsent'), false, 'gone already');
    assert.equal(await videoTasks.discardTask('sent'), false, 'it runs upstream');
    assert.equal(await videoTasks.discardTask('settled'), false);
    assert.equal(await videoTasks.discardTask('video_none'), false);
    assert.deepEqual([(await videoTasks.task('sent'))?.id, (await videoTasks.task('settled'))?.id], ['sent', 'settled']);
  });

  it('lists the settled, sent tasks whose record is not written, oldest settled first, until marked', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    const settle = async (id: string, at: number, upstreamId: string | null = `cgt-${id}`): Promise<void> => {
      await videoTasks.addTask(task(id, { upstreamId }));
      assert.equal(await videoTasks.settleTask(id, settlement(at)), true);
    };
    await settle('late', T0 + 30);
    await settle('b', T0 + 10);
    await settle('a', T0 + 10);
    await settle('first', T0 + 5);
    await settle('never-sent', T0 + 1, null);
    await settle('after', T0 + 50);
    await videoTasks.addTask(task('unsettled', { upstreamId: 'cgt-u', status: 'running' }));

    assert.deepEqual(ids(await videoTasks.unrecorded(T0 + 30, 10)), ['first', 'a', 'b', 'late'], 'settled at or before, ties by id');
    assert.deepEqual(ids(await videoTasks.unrecorded(T0 + 30, 2)), ['first', 'a']);
    assert.deepEqual(await videoTasks.unrecorded(T0 + 30, 0), []);
    await videoTasks.markRecorded('a', T0 + 40);
    assert.equal((await videoTasks.task('a'))?.recordedAt, T0 + 40);
    assert.deepEqual(ids(await videoTasks.unrecorded(T0 + 100, 10)), ['first', 'b', 'late', 'after']);
  });

  it('drops the holds of settled and missing tasks, and keeps unsettled tasks\' and other owners\'', async () => {
    const store = temp.get();
    const videoTasks = store.part(VIDEO_TASKS);
    await fund(store);
    await videoTasks.addTask(task('video_live'));
    await videoTasks.addTask(task('video_done'));
    // Settled without its holds, as a crash before the release leaves it: the row written settled.
    await videoTasks.addTask(task('video_old', { status: 'succeeded', settledAt: T0 + 1, cost: 5n }));
    const live = await hold(store, 'task:video_live');
    const done = await hold(store, 'task:video_done');
    await videoTasks.settleTask('video_done', settlement(T0 + 1));
    const late = await hold(store, 'task:video_done');
    const old = await hold(store, 'task:video_old');
    const missing = await hold(store, 'task:video_gone');
    // An id's `_` is no wildcard: videoXlive is no task, though `owner LIKE 'task:' || id` would take it for video_live.
    const wild = await hold(store, 'task:videoXlive');
    const instance = await hold(store, 'instance-1');
    const upper = await hold(store, 'TASK:video_gone');

    assert.equal(await videoTasks.dropStrayHolds(), 4);
    assert.equal(await held(store, 'task:video_live', live), true, 'an unsettled task\'s');
    assert.equal(await held(store, 'instance-1', instance), true, 'an instance\'s');
    assert.equal(await held(store, 'TASK:video_gone', upper), true, 'no task\'s: the prefix is exact');
    assert.equal(await held(store, 'task:video_done', done), false, 'released by its settlement');
    for (const [owner, id] of [['task:video_done', late], ['task:video_old', old], ['task:video_gone', missing], ['task:videoXlive', wild]] as const) {
      assert.equal(await held(store, owner, id), false, owner);
    }
    assert.equal(await videoTasks.dropStrayHolds(), 0, 'nothing left to drop');
  });

  it('inserts a submitter\'s task leased: no poller claims it until the lease ends', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    await videoTasks.addTask(task('video_1', { nextPollAt: T0 }), { owner: 'submitter', until: T0 + 1_000 });
    await videoTasks.addTask(task('video_2', { nextPollAt: T0 }));
    assert.deepEqual(ids(await videoTasks.claimDue('poller', T0 + 500, T0 + 30_000, 10)), ['video_2']);
    assert.equal(await videoTasks.claimTask('video_1', 'client', T0 + 999, T0 + 2_000), false, 'a GET waits too');
    assert.equal(await videoTasks.claimTask('video_1', 'submitter', T0 + 999, T0 + 2_000), true, 'its submitter\'s lease, extended');
    await videoTasks.releaseLease('submitter', 'video_1');
    assert.deepEqual(ids(await videoTasks.claimDue('poller', T0 + 1_000, T0 + 30_000, 10)), ['video_1'], 'free once released');
    await videoTasks.addTask(task('video_3', { nextPollAt: T0 }), { owner: 'submitter', until: T0 + 1_000 });
    assert.deepEqual(await videoTasks.claimDue('poller', T0 + 1_000, T0 + 30_000, 10), [], 'not at the lease\'s last instant');
    assert.deepEqual(ids(await videoTasks.claimDue('poller', T0 + 1_001, T0 + 30_000, 10)), ['video_3'], 'past it');
  });

  it('claims the due, unsettled, unleased tasks, at most limit, in the order they fell due', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    await videoTasks.addTask(task('due-b', { nextPollAt: T0 + 2 }));
    await videoTasks.addTask(task('due-a', { nextPollAt: T0 + 1 }));
    await videoTasks.addTask(task('due-now', { nextPollAt: T0 + 100 }));
    await videoTasks.addTask(task('later', { nextPollAt: T0 + 10_000 }));
    await videoTasks.addTask(task('settled', { nextPollAt: T0 }));
    await videoTasks.settleTask('settled', settlement(T0));
    await videoTasks.addTask(task('leased', { nextPollAt: T0 }));
    assert.equal(await videoTasks.claimTask('leased', 'other', T0, T0 + 1_000), true);

    const now = T0 + 100;
    assert.deepEqual(ids(await videoTasks.claimDue('me', now, now + 30_000, 2)), ['due-a', 'due-b'], 'limit');
    assert.deepEqual(ids(await videoTasks.claimDue('me', now, now + 30_000, 10)), ['due-now'], 'not again while leased to me, nor later, settled or leased to another');
    assert.deepEqual(await videoTasks.claimDue('me', now, now + 30_000, 0), []);
    // Past the other owner's lease, its task is free to claim.
    assert.deepEqual(ids(await videoTasks.claimDue('me', T0 + 1_001, T0 + 31_001, 10)), ['leased']);
    assert.equal(await videoTasks.claimTask('leased', 'other', T0 + 1_002, T0 + 2_000), false, 'mine now');
  });

  it('never hands one task to two pollers claiming at once', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    for (let i = 0; i < 20; i++) await videoTasks.addTask(task(`video_${String(i).padStart(2, '0')}`, { nextPollAt: T0 + i }));
    for (let round = 0; round < 3; round++) {
      const now = T0 + 100 + round * 100_000;
      const [a, b] = await Promise.all([videoTasks.claimDue(`a${round}`, now, now + 30_000, 20), videoTasks.claimDue(`b${round}`, now, now + 30_000, 20)]);
      const seen = new Set(ids(a));
      for (const id of ids(b)) assert.equal(seen.has(id), false, `${id} claimed twice`);
      assert.equal(a.length + b.length, 20, 'all of them between the two');
    }
  });

  it('leases one task to a client GET, and gives leases up', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    await videoTasks.addTask(task('video_1'));
    await videoTasks.addTask(task('video_2'));
    await videoTasks.addTask(task('video_3'));
    assert.equal(await videoTasks.claimTask('video_1', 'a', T0, T0 + 1_000), true);
    assert.equal(await videoTasks.claimTask('video_1', 'a', T0 + 1, T0 + 2_000), true, 'its own lease, extended');
    assert.equal(await videoTasks.claimTask('video_1', 'b', T0 + 1_999, T0 + 3_000), false, 'another owner, before it expires');
    assert.equal(await videoTasks.claimTask('video_1', 'b', T0 + 2_001, T0 + 3_000), true, 'after it expired');
    assert.equal(await videoTasks.claimTask('video_none', 'a', T0, T0 + 1_000), false);

    await videoTasks.releaseLease('a', 'video_1');
    assert.equal(await videoTasks.claimTask('video_1', 'a', T0 + 2_002, T0 + 4_000), false, 'another owner\'s lease is not released');
    await videoTasks.releaseLease('b', 'video_1');
    assert.equal(await videoTasks.claimTask('video_1', 'a', T0 + 2_002, T0 + 4_000), true, 'released');

    assert.equal(await videoTasks.claimTask('video_2', 'a', T0, T0 + 5_000), true);
    assert.equal(await videoTasks.claimTask('video_3', 'b', T0, T0 + 5_000), true);
    await videoTasks.releaseLease('a');
    assert.deepEqual(ids(await videoTasks.claimDue('c', T0 + 1, T0 + 1_000, 10)), ['video_1', 'video_2'], 'all of a\'s, none of b\'s');

    await videoTasks.settleTask('video_1', settlement(T0 + 2));
    assert.equal(await videoTasks.claimTask('video_1', 'c', T0 + 3, T0 + 1_000), false, 'settled');
    await videoTasks.releaseLease('c');
    assert.equal(await videoTasks.claimTask('video_1', 'd', T0 + 3, T0 + 1_000), false, 'settled, though unleased');
  });

  it('pages a key tasks by keyset, in both orders, ties by id', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    // t2 and t3 share a creation time: their order is their ids'. Added out of order, so insertion order proves nothing.
    const made: readonly (readonly [string, number])[] = [['t3', T0 + 2], ['t0', T0], ['t5', T0 + 4], ['t2', T0 + 2], ['t1', T0 + 1], ['t4', T0 + 3]];
    for (const [id, createdAt] of made) await videoTasks.addTask(task(id, { createdAt }));
    await videoTasks.addTask(task('other-key', { keyId: 'kb', createdAt: T0 + 2 }));

    const pages = async (ascending: boolean): Promise<string[][]> => {
      const seen: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = ids(await videoTasks.keyTasks(Object.assign({ keyId: 'ka', limit: 4, ascending }, after === undefined ? {} : { after })));
        if (page.length === 0) return seen;
        seen.push(page);
        after = page[page.length - 1];
      }
    };
    assert.deepEqual(await pages(true), [['t0', 't1', 't2', 't3'], ['t4', 't5']]);
    assert.deepEqual(await pages(false), [['t5', 't4', 't3', 't2'], ['t1', 't0']]);
    assert.deepEqual(ids(await videoTasks.keyTasks({ keyId: 'ka', after: 't2', limit: 10, ascending: true })), ['t3', 't4', 't5'], 'past a tie');
    assert.deepEqual(ids(await videoTasks.keyTasks({ keyId: 'ka', after: 't3', limit: 10, ascending: false })), ['t2', 't1', 't0']);
    assert.deepEqual(await videoTasks.keyTasks({ keyId: 'ka', after: 'video_none', limit: 10, ascending: true }), [], 'an unknown cursor');
    assert.deepEqual(await videoTasks.keyTasks({ keyId: 'ka', after: 'other-key', limit: 10, ascending: true }), [], 'another key\'s task is no cursor');
    assert.deepEqual(ids(await videoTasks.keyTasks({ keyId: 'kb', limit: 10, ascending: true })), ['other-key']);
  });

  it('pages an account tasks newest first with their count, the unmetered keys\' apart, narrowed to a key', async () => {
    const videoTasks = temp.get().part(VIDEO_TASKS);
    for (let i = 0; i < 5; i++) await videoTasks.addTask(task(`acme-${i}`, { keyId: i % 2 === 0 ? 'ka' : 'kb', createdAt: T0 + i }));
    await videoTasks.addTask(task('free-0', { account: null, keyId: 'kf', createdAt: T0 }));
    await videoTasks.addTask(task('free-1', { account: null, keyId: 'kg', createdAt: T0 + 1 }));
    await videoTasks.addTask(task('other', { account: 'globex', createdAt: T0 + 9 }));

    const all = await videoTasks.accountTasks('acme', { offset: 0, limit: 2 });
    assert.deepEqual([all.total, ids(all.rows)], [5, ['acme-4', 'acme-3']]);
    const rest = await videoTasks.accountTasks('acme', { offset: 2, limit: 10 });
    assert.deepEqual(ids(rest.rows), ['acme-2', 'acme-1', 'acme-0']);
    const byKey = await videoTasks.accountTasks('acme', { offset: 0, limit: 10, keyId: 'kb' });
    assert.deepEqual([byKey.total, ids(byKey.rows)], [2, ['acme-3', 'acme-1']]);
    const unmetered = await videoTasks.accountTasks(null, { offset: 0, limit: 10 });
    assert.deepEqual([unmetered.total, ids(unmetered.rows)], [2, ['free-1', 'free-0']], 'null: the unmetered keys\' only');
    const oneFree = await videoTasks.accountTasks(null, { offset: 0, limit: 10, keyId: 'kf' });
    assert.deepEqual([oneFree.total, ids(oneFree.rows)], [1, ['free-0']]);
    assert.deepEqual(await videoTasks.accountTasks('nobody', { offset: 0, limit: 10 }), { rows: [], total: 0 });
  });
});
