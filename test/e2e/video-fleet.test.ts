// Video tasks across instances and restarts. Two gateways on one PostgreSQL poll the same unfinished tasks (each task
// leased to one instance at a time) and each task is settled, and charged, exactly once. A gateway stopped while five
// tasks run upstream leaves them in the store; the next one started on the store settles all five, once each.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { auditBooks } from '../../core/money/audit.js';
import { until } from '../helpers/poll.js';
import { storeBackends } from '../helpers/test-stores.js';
import { ALICE, SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';
import { VIDEO_TASKS } from '../../features/video/store-part.js';

const WAIT = { timeoutMs: 15_000, intervalMs: 50 };
/** 108,900 tokens at 2.00 per 1M. */
const TASK_COST = 217_800_000n;

for (const backend of storeBackends()) {
  describe(`video tasks survive a restart (${backend.name})`, { skip: backend.skip }, () => {
    let planes: VideoPlanes;
    let db: { readonly url: string; cleanup(): Promise<void> };
    before(async () => {
      planes = await startVideoPlanes();
      db = await backend.fresh();
    });
    after(async () => {
      await planes.close();
      await db.cleanup();
    });

    test('stopped while 5 tasks run upstream, started again: all 5 settled once', async () => {
      const first = await startVideoGateway(planes, { store: db.url });
      const ids: string[] = [];
      let start: bigint;
      try {
        start = (await first.gw.gateway.runtime.deps.store.ledger.getAccount('acme'))?.balance ?? 0n;
        for (let i = 0; i < 5; i++) {
          const created = await first.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: `restart ${i}` });
          assert.equal(created.status, 200, created.text);
          ids.push(created.body['id'] as string);
        }
        for (const id of planes.ark.tasks.keys()) planes.ark.setStatus(id, 'running');
        await until('running', async () => ((await first.request(ALICE, 'GET', `/v1/videos/${ids[4]}`)).body['status'] === 'in_progress' ? true : undefined), WAIT);
      } finally {
        await first.stop();
      }
      // They end while no gateway runs.
      for (const id of planes.ark.tasks.keys()) planes.ark.finish(id, { totalTokens: 108_900 });
      const second = await startVideoGateway(planes, { store: db.url, credit: '' });
      try {
        const store = second.gw.gateway.runtime.deps.store;
        await until('all settled', async () => {
          const rows = await Promise.all(ids.map((id) => store.part(VIDEO_TASKS).task(id)));
          return rows.every((row) => row?.recordedAt != null && row.status === 'succeeded') ? true : undefined;
        }, WAIT);
        const records = (await second.gw.usage()).filter((r) => ids.includes(r.requestId));
        assert.equal(records.length, 5);
        assert.equal(start - ((await store.ledger.getAccount('acme'))?.balance ?? 0n), 5n * TASK_COST);
        assert.deepEqual((await auditBooks(store)).problems, []);
      } finally {
        await second.stop();
      }
    });

    test('a task that ended upstream while no gateway ran, past its deadline, is settled as it ended', async () => {
      // The shortest deadline the config takes (1 s); the second gateway starts once it has passed.
      const first = await startVideoGateway(planes, { store: db.url, credit: '', taskTimeoutMs: 1000 });
      let id = '';
      let pastDeadline = 0;
      try {
        const created = await first.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'made while away' });
        assert.equal(created.status, 200, created.text);
        id = created.body['id'] as string;
        pastDeadline = Date.now() + 1000; // the task's deadline was set before this
      } finally {
        await first.stop();
      }
      planes.ark.finish([...planes.ark.tasks.keys()].pop() as string, { totalTokens: 108_900 });
      await until('the task is past its deadline', () => (Date.now() > pastDeadline ? true : undefined), WAIT);
      const second = await startVideoGateway(planes, { store: db.url, credit: '', taskTimeoutMs: 1000 });
      try {
        const row = await until('settled', async () => {
          const task = await second.gw.gateway.runtime.deps.store.part(VIDEO_TASKS).task(id);
          return task?.recordedAt != null ? task : undefined;
        }, WAIT);
        assert.equal(row.status, 'succeeded');
        assert.equal(row.cost, TASK_COST);
        const file = await fetch(`${second.gw.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer ${ALICE}` } });
        assert.deepEqual(Buffer.from(await file.arrayBuffer()), planes.ark.video);
      } finally {
        await second.stop();
      }
    });
  });
}

const postgres = storeBackends().find((b) => b.name === 'postgres');
describe('two instances poll the same tasks (postgres)', { skip: postgres?.skip }, () => {
  let planes: VideoPlanes;
  let db: { readonly url: string; cleanup(): Promise<void> };
  const gateways: VideoGateway[] = [];
  before(async () => {
    planes = await startVideoPlanes();
    db = await (postgres as NonNullable<typeof postgres>).fresh();
    gateways.push(await startVideoGateway(planes, { store: db.url }));
    gateways.push(await startVideoGateway(planes, { store: db.url, credit: '' }));
  });
  after(async () => {
    for (const g of gateways) await g.stop();
    await planes.close();
    await db.cleanup();
  });

  test('30 tasks made on both, ended at once upstream: each settled and charged exactly once', async () => {
    const [a, b] = gateways as [VideoGateway, VideoGateway];
    const store = a.gw.gateway.runtime.deps.store;
    const start = (await store.ledger.getAccount('acme'))?.balance ?? 0n;
    const ids = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const created = await (i % 2 === 0 ? a : b).request(ALICE, 'POST', '/v1/video/generations', { model: SEEDANCE, prompt: `fleet ${i}` });
        assert.equal(created.status, 200, created.text);
        return created.body['id'] as string;
      }),
    );
    for (const id of planes.ark.tasks.keys()) planes.ark.finish(id, { totalTokens: 108_900 });
    // Clients of both instances read them meanwhile, as the pollers do.
    await until('all settled', async () => {
      await Promise.all(ids.slice(0, 10).map((id, i) => (i % 2 === 0 ? b : a).request(ALICE, 'GET', `/v1/video/generations/${id}`)));
      const rows = await Promise.all(ids.map((id) => store.part(VIDEO_TASKS).task(id)));
      return rows.every((row) => row?.recordedAt != null) ? true : undefined;
    }, WAIT);
    const records = [...(await a.gw.usage()), ...(await b.gw.usage())].filter((r) => ids.includes(r.requestId));
    // Both instances read one store: each record is seen twice, once per listing.
    assert.equal(new Set(records.map((r) => r.requestId)).size, 30);
    assert.equal(records.length, 60);
    assert.equal(start - ((await store.ledger.getAccount('acme'))?.balance ?? 0n), 30n * TASK_COST);
    const charges = (await store.ledger.listLedger('acme', 1000)).filter((e) => e.kind === 'charge');
    assert.equal(charges.reduce((sum, e) => sum - e.amount, 0n), 30n * TASK_COST);
    assert.deepEqual((await auditBooks(store)).problems, []);
  });
});
