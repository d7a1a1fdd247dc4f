// Video tasks in the store (store/video-task-store.ts), on SQLite and PostgreSQL: a row round trip (money past 2^53,
// holds), changes refused once settled, one settlement of racing ones, the pollers' leases (claimDue's due, free and
// limit rules, two concurrent pollers never sharing a task, claimTask, releaseLease), a key's keyset pages and an
// account's pages.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VideoTaskRow, VideoTaskSettlement } from '../../../core/store/video-task-store.js';
import { storeBackends } from '../../helpers/test-stores.js';
import { useTempStore } from './store-fixtures.js';

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
    at,
  };
  return Object.assign(end, overrides);
}

const ids = (rows: readonly VideoTaskRow[]): string[] => rows.map((r) => r.id);

for (const backend of storeBackends()) describe(`video task store (${backend.name})`, { skip: backend.skip }, () => {
  const temp = useTempStore('video-tasks.db', backend);

  it('reads a task back as written: money past 2^53 exactly, its holds, its nulls', async () => {
    const { videoTasks } = temp.get();
    const row = task('video_1', { reserved: BIG, holds: [{ holdId: 'h-acct', amount: BIG }, { holdId: 'h-key', amount: 7n }], account: null, shape: 'generations' });
    await videoTasks.addTask(row);
    assert.deepEqual(await videoTasks.task('video_1'), row);
    const done = task('video_2', { status: 'succeeded', completedAt: T0 + 5, settledAt: T0 + 5, cost: BIG, totalTokens: 3_000_000_000, holds: [], prompt: null, seconds: null, size: null });
    await videoTasks.addTask(done);
    assert.deepEqual(await videoTasks.task('video_2'), done);
    assert.equal(await videoTasks.task('video_none'), undefined);
  });

  it('changes an unsettled task, refuses to once it is settled, and settles once', async () => {
    const { videoTasks } = temp.get();
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
    assert.equal(await videoTasks.updateTask('video_none', { progress: 1, updatedAt: T0 }), false);
    assert.equal(await videoTasks.settleTask('video_none', settlement(T0)), false);

    await videoTasks.addTask(task('video_2'));
    assert.equal(await videoTasks.settleTask('video_2', settlement(T0 + 3, { status: 'failed', resultUrl: null, errorCode: 'OutputVideoSensitiveContentDetected', errorMessage: 'no', totalTokens: null, seconds: 10, cost: 0n })), true);
    const failed = await videoTasks.task('video_2');
    assert.deepEqual([failed?.status, failed?.errorCode, failed?.errorMessage, failed?.seconds, failed?.cost, failed?.totalTokens], ['failed', 'OutputVideoSensitiveContentDetected', 'no', 10, 0n, null]);
  });

  it('lets exactly one of five concurrent settlements through', async () => {
    const { videoTasks } = temp.get();
    await videoTasks.addTask(task('video_1'));
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => videoTasks.settleTask('video_1', settlement(T0 + 10 + i, { cost: BigInt(i + 1) }))));
    assert.equal(results.filter(Boolean).length, 1);
    const winner = results.indexOf(true);
    const settled = await videoTasks.task('video_1');
    assert.deepEqual([settled?.cost, settled?.settledAt], [BigInt(winner + 1), T0 + 10 + winner], 'the row is the winner\'s');
  });

  it('claims the due, unsettled, unleased tasks, at most limit, in the order they fell due', async () => {
    const { videoTasks } = temp.get();
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
    const { videoTasks } = temp.get();
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
    const { videoTasks } = temp.get();
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
    const { videoTasks } = temp.get();
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
    const { videoTasks } = temp.get();
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
