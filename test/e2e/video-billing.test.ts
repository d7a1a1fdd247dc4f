// A video task's money through the ledger: the most it may cost set aside at submission (402, and no upstream call,
// when the balance is short), its reported usage charged exactly once when it succeeds (times the group's
// multiplier), nothing when it fails, is cancelled or expires (its reservation released), and the audit passes.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { auditBooks } from '../../core/money/audit.js';
import { VideoPoller } from '../../features/video/poller.js';
import { until } from '../helpers/poll.js';
import { ALICE, BROKE, HALF, SEEDANCE, startVideoGateway, startVideoPlanes, TEST_KEY, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';
import { videoDepsOf } from '../../features/video/services.js';
import { VIDEO_TASKS } from '../../features/video/store-part.js';

const WAIT = { timeoutMs: 10_000, intervalMs: 25 };
/** A key of acme's with a daily max_spend of 0.40: one task's cost fits, two do not. */
const DAILY = 'sk-video-daily-cap-0123456789abcdef';
/** 108,900 tokens at 2.00 per 1M. */
const TASK_COST = 217_800_000n;

describe('video task billing', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  const store = () => v.gw.gateway.runtime.deps.store;
  const balance = async (account: string): Promise<bigint> => (await store().ledger.getAccount(account))?.balance ?? -1n;
  const lastUpstream = (): string => [...planes.ark.tasks.keys()].pop() as string;
  /** Settled, and its usage record (its charge) written. */
  const settled = (id: string) => until(`settled ${id}`, async () => ((await store().part(VIDEO_TASKS).task(id))?.recordedAt != null ? true : undefined), WAIT);
  const create = async (key: string, seconds = 5): Promise<string> => {
    const created = await v.request(key, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'a paid video', seconds: String(seconds) });
    assert.equal(created.status, 200, created.text);
    return created.body['id'] as string;
  };

  before(async () => {
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes, { taskTimeoutMs: 1500, keys: `  - { name: daily, key: ${DAILY}, group: pro, account: acme, max_spend: { amount: "0.40", period: day } }\n` });
  });
  after(async () => {
    await v.stop();
    await planes.close();
  });

  test('a succeeded task is charged exactly price x total_tokens, once, in a usage record of its own', async () => {
    const start = await balance('acme');
    const id = await create(ALICE);
    const task = await store().part(VIDEO_TASKS).task(id);
    assert.equal(task?.reserved, 283_500_000n, 'reserved: 720p (at most 1680x720, 21:9) x 5 s at 24 fps = 141,750 tokens at 2.00 per 1M');
    planes.ark.finish(lastUpstream(), { totalTokens: 108_900, duration: 5 });
    await settled(id);
    // Read again and again: settled once.
    for (let i = 0; i < 3; i++) assert.equal((await v.request(ALICE, 'GET', `/v1/videos/${id}`)).body['status'], 'completed');
    assert.equal(start - (await balance('acme')), TASK_COST);
    const records = (await v.gw.usage()).filter((r) => r.requestId === id);
    assert.equal(records.length, 1);
    assert.equal(records[0]?.cost, TASK_COST);
    assert.equal(records[0]?.completionTokens, 108_900);
    assert.equal(records[0]?.account, 'acme');
    assert.equal(records[0]?.route, '/v1/videos');
    assert.equal((await store().part(VIDEO_TASKS).task(id))?.cost, TASK_COST);
  });

  test("the group's multiplier applies", async () => {
    const start = await balance('other');
    const id = await create(HALF);
    planes.ark.finish(lastUpstream(), { totalTokens: 108_900 });
    await settled(id);
    assert.equal(start - (await balance('other')), TASK_COST / 2n);
  });

  test('failed, cancelled and expired tasks are charged nothing, and their reservations are released', async () => {
    const start = await balance('acme');
    const failed = await create(ALICE);
    planes.ark.fail(lastUpstream(), 'InternalServiceError', 'The service met an error.');
    const cancelled = await create(ALICE);
    assert.equal((await v.request(ALICE, 'DELETE', `/v1/videos/${cancelled}`)).status, 200);
    // Left queued upstream past video.task_timeout_ms (1.5 s here).
    const expired = await create(ALICE);
    for (const id of [failed, cancelled, expired]) await settled(id);
    assert.equal((await store().part(VIDEO_TASKS).task(expired))?.status, 'expired');
    assert.equal((await v.request(ALICE, 'GET', `/v1/videos/${expired}`)).body['status'], 'failed');
    assert.equal(await balance('acme'), start);
    for (const id of [failed, cancelled, expired]) {
      assert.equal((await store().part(VIDEO_TASKS).task(id))?.cost, 0n);
      const records = (await v.gw.usage()).filter((r) => r.requestId === id);
      assert.equal(records.length, 1, `one record for ${id}`);
      assert.equal(records[0]?.cost, 0n);
    }
    // Nothing stays held: the whole balance can be reserved again.
    const holds = await store().ledger.acquireHold({ budget: { kind: 'account', account: 'acme' }, min: start, want: start, owner: 'probe', now: Date.now(), expiresAt: Date.now() + 1000 });
    assert.equal(holds.granted, true, 'the whole balance is available');
    await store().ledger.releaseHolds('probe');
  });

  test('a short balance gets 402 and no upstream call; a reservation holds balance until its task ends', async () => {
    const calls = planes.ark.calls.length;
    const broke = await v.request(BROKE, 'POST', '/v1/video/generations', { model: SEEDANCE, prompt: 'no money' });
    assert.equal(broke.status, 402);
    assert.equal((broke.body['error'] as Record<string, unknown>)['code'], 'insufficient_balance');
    assert.equal(planes.ark.calls.length, calls);

    // Leave acme less than two reservations: the second task is refused while the first holds its share.
    const available = await balance('acme');
    const keep = 300_000_000n;
    await store().ledger.post({ account: 'acme', kind: 'adjustment', amount: keep - available, idempotencyKey: 'video-billing-shrink', ts: Date.now() });
    const first = await create(ALICE);
    const second = await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'one too many' });
    assert.equal(second.status, 402);
    planes.ark.fail(lastUpstream(), 'InternalServiceError', 'failed');
    await settled(first);
    await create(ALICE);
  });

  test('unmetered keys are served and their tasks recorded with a cost, charged to no account', async () => {
    const id = await create(TEST_KEY);
    planes.ark.finish(lastUpstream(), { totalTokens: 1000 });
    await settled(id);
    const record = (await v.gw.usage()).find((r) => r.requestId === id);
    assert.equal(record?.cost, 2_000_000n);
    assert.equal(record?.account, undefined);
  });

  test("a settlement whose record was lost (a crash between the two steps) is charged by the sweep, once; stray holds go", async () => {
    await store().ledger.post({ account: 'acme', kind: 'credit', amount: 1_000_000_000n, idempotencyKey: 'video-billing-sweep', ts: Date.now() });
    const id = await create(ALICE);
    const services = v.gw.gateway.runtime.current.services;
    const start = await balance('acme');
    // The compare-and-set alone, as a settler that died before writing the record leaves it.
    const won = await store().part(VIDEO_TASKS).settleTask(id, {
      status: 'succeeded',
      progress: 100,
      resultUrl: null,
      errorCode: null,
      errorMessage: null,
      totalTokens: 108_900,
      seconds: 5,
      cost: TASK_COST,
      priceVersion: services.config.pricing.version,
      at: Date.now(),
    });
    assert.equal(won, true);
    assert.equal(await balance('acme'), start, 'not charged yet');
    const stray = await store().ledger.acquireHold({ budget: { kind: 'account', account: 'acme' }, min: 1000n, want: 1000n, owner: 'task:video_neverwritten', now: Date.now(), expiresAt: Date.now() + 3_600_000 });
    assert.equal(stray.granted, true);
    const poller = new VideoPoller({ owner: 'sweep-test', deps: () => videoDepsOf(services) });
    await poller.sweep(Date.now() + 60_000);
    await poller.sweep(Date.now() + 60_000);
    assert.equal(start - (await balance('acme')), TASK_COST, 'charged once');
    assert.equal((await v.gw.usage()).filter((r) => r.requestId === id).length, 1);
    assert.notEqual((await store().part(VIDEO_TASKS).task(id))?.recordedAt, null);
    assert.equal(await store().part(VIDEO_TASKS).dropStrayHolds(), 0, 'the stray hold was dropped by the sweep');
  });

  test("a task's charge counts in its key's daily max_spend: a second task that would pass the day's cap is a 402 saying when it resets", async () => {
    const id = await create(DAILY);
    planes.ark.finish(lastUpstream(), { totalTokens: 108_900 });
    await settled(id);
    const me = await v.request(DAILY, 'GET', '/v1/me');
    assert.equal(me.status, 200, me.text);
    const period = me.body['max_spend_period'] as Record<string, unknown> | null;
    assert.equal(period?.['spend'], '0.2178', 'the settled task is in the period spend');
    const calls = planes.ark.calls.filter((c) => c.method === 'POST').length;
    const refused = await v.request(DAILY, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'one too many', seconds: '5' });
    assert.equal(refused.status, 402, refused.text);
    assert.equal((refused.body['error'] as Record<string, unknown>)['code'], 'max_spend_reached');
    assert.match(String((refused.body['error'] as Record<string, unknown>)['message']), /resets at/);
    assert.equal(planes.ark.calls.filter((c) => c.method === 'POST').length, calls, 'no upstream call');
  });

  test('the audit passes', async () => {
    const report = await auditBooks(store());
    assert.deepEqual(report.problems, []);
    assert.ok(report.pricedRecords >= 4);
  });
});
