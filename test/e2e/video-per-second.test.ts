// A video model priced per second of video as well as per token (pricing.models.<glob>.per_second): the reservation
// adds per_second for each second asked (the longest clip for auto), a succeeded task pays its reported tokens at the
// output price plus its reported duration at per_second (rounded once, times the group's multiplier), its record
// keeps the seconds charged, and the audit computes the same cost again from that record.

import { after, before, describe, test } from 'node:test';
import { VIDEO_TASKS } from '../../features/video/store-part.js';
import assert from 'node:assert/strict';
import { auditBooks } from '../../core/money/audit.js';
import { VideoPoller } from '../../features/video/poller.js';
import { until } from '../helpers/poll.js';
import { ALICE, HALF, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';
import { videoDepsOf } from '../../features/video/services.js';

const WAIT = { timeoutMs: 10_000, intervalMs: 25 };
/** Served by the channels' `doubao-seedance-*`, priced by its own entry, which comes first. */
const PER_SECOND_MODEL = 'doubao-seedance-persec';
/** 2.00 per 1M tokens and 0.05 per second. */
const PRICES = `    "${PER_SECOND_MODEL}": { output: "2.00", per_second: "0.05" }\n`;
/** 217,800 tokens at 2.00 per 1M (0.4356) + 8 s at 0.05 (0.4). */
const TASK_COST = 835_600_000n;

describe('video tasks priced per second', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  const store = () => v.gw.gateway.runtime.deps.store;
  const balance = async (account: string): Promise<bigint> => (await store().ledger.getAccount(account))?.balance ?? -1n;
  const lastUpstream = (): string => [...planes.ark.tasks.keys()].pop() as string;
  const settled = (id: string) => until(`settled ${id}`, async () => ((await store().part(VIDEO_TASKS).task(id))?.recordedAt != null ? true : undefined), WAIT);
  const create = async (key: string, seconds: number): Promise<string> => {
    const created = await v.request(key, 'POST', '/v1/videos', { model: PER_SECOND_MODEL, prompt: 'a video paid by the second', seconds: String(seconds) });
    assert.equal(created.status, 200, created.text);
    return created.body['id'] as string;
  };
  const record = async (id: string) => {
    const records = (await v.gw.usage()).filter((r) => r.requestId === id);
    assert.equal(records.length, 1, `one record for ${id}`);
    return records[0];
  };

  before(async () => {
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes, { prices: PRICES });
  });
  after(async () => {
    await v.stop();
    await planes.close();
  });

  test('the reservation adds per_second x the seconds asked; the charge is the reported tokens and duration', async () => {
    const start = await balance('acme');
    const id = await create(ALICE, 10);
    // 720p (at most 1680x720) x 10 s at 24 fps = 283,500 tokens at 2.00 per 1M (0.567) + 10 s at 0.05 (0.5).
    assert.equal((await store().part(VIDEO_TASKS).task(id))?.reserved, 1_067_000_000n);
    // Ark made a shorter clip than asked: the duration it reports is what is charged.
    planes.ark.finish(lastUpstream(), { totalTokens: 217_800, duration: 8 });
    await settled(id);
    assert.equal(start - (await balance('acme')), TASK_COST);
    const row = await store().part(VIDEO_TASKS).task(id);
    assert.equal(row?.cost, TASK_COST);
    assert.equal(row?.seconds, 8, 'the row says the seconds charged');
    const charged = await record(id);
    assert.equal(charged?.cost, TASK_COST);
    assert.equal(charged?.completionTokens, 217_800);
    assert.equal(charged?.seconds, 8);
    assert.equal(charged?.priceVersion, v.gw.gateway.runtime.current.services.config.pricing.version);
  });

  test("the group's multiplier applies to the seconds too, and the whole is rounded once", async () => {
    const start = await balance('other');
    const id = await create(HALF, 8);
    planes.ark.finish(lastUpstream(), { totalTokens: 217_800, duration: 8 });
    await settled(id);
    assert.equal(start - (await balance('other')), TASK_COST / 2n);
    assert.equal((await record(id))?.seconds, 8);
  });

  test('a task whose upstream reports no duration is charged the seconds asked', async () => {
    const start = await balance('acme');
    const id = await create(ALICE, 6);
    planes.ark.setStatus(lastUpstream(), 'succeeded', { error: null, totalTokens: 100_000, duration: null });
    await settled(id);
    // 100,000 tokens at 2.00 per 1M (0.2) + 6 s at 0.05 (0.3).
    assert.equal(start - (await balance('acme')), 500_000_000n);
    assert.equal((await record(id))?.seconds, 6);
  });

  test('auto (-1) reserves the longest clip in seconds too; a failed task is charged nothing, and has no seconds', async () => {
    const start = await balance('acme');
    const id = await create(ALICE, -1);
    // 720p x 15 s (the longest) at 24 fps = 425,250 tokens at 2.00 per 1M (0.8505) + 15 s at 0.05 (0.75).
    assert.equal((await store().part(VIDEO_TASKS).task(id))?.reserved, 1_600_500_000n);
    planes.ark.fail(lastUpstream(), 'InternalServiceError', 'The service met an error.');
    await settled(id);
    assert.equal(await balance('acme'), start);
    const failed = await record(id);
    assert.equal(failed?.cost, 0n);
    assert.equal(failed?.seconds, undefined);
  });

  test("a settlement whose record was lost is charged from the row by the sweep, the row's seconds included", async () => {
    const id = await create(ALICE, 8);
    const services = v.gw.gateway.runtime.current.services;
    const start = await balance('acme');
    // The compare-and-set alone, as a settler that died before writing the record leaves it.
    const won = await store().part(VIDEO_TASKS).settleTask(id, {
      status: 'succeeded',
      progress: 100,
      resultUrl: null,
      errorCode: null,
      errorMessage: null,
      totalTokens: 217_800,
      seconds: 8,
      cost: TASK_COST,
      priceVersion: services.config.pricing.version,
      at: Date.now(),
    });
    assert.equal(won, true);
    await new VideoPoller({ owner: 'per-second-sweep', deps: () => videoDepsOf(services) }).sweep(Date.now() + 60_000);
    assert.equal(start - (await balance('acme')), TASK_COST);
    assert.equal((await record(id))?.seconds, 8);
  });

  test('the audit computes every per-second charge again and finds nothing wrong', async () => {
    assert.match(v.gw.gateway.runtime.current.services.config.pricing.document, /"per_second":"0.05"/);
    const report = await auditBooks(store());
    assert.deepEqual(report.problems, []);
    assert.ok(report.pricedRecords >= 5);
  });
});
