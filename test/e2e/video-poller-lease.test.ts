// A poller whose lease could not be given back (the store out of reach for that one write) gives it back on its next
// pass, so the task is read again at once rather than after the whole lease (two minutes). Found by the chaos run: two
// tasks read while PostgreSQL was cut stayed queued long after they had finished upstream.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { until } from '../helpers/poll.js';
import { ALICE, SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';
import { VIDEO_TASKS } from '../../features/video/store-part.js';

describe('the video poller when giving a lease back fails', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  before(async () => {
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes);
  });
  after(async () => {
    await v.stop();
    await planes.close();
  });

  test('the lease is given back on the next pass and the task is settled within seconds', async () => {
    const tasks = v.gw.gateway.runtime.deps.store.part(VIDEO_TASKS);
    const release = tasks.releaseLease.bind(tasks);
    let refused = 0;
    // Every release of the poller's fails for a while, as while the database is cut.
    const failUntil = Date.now() + 500;
    Object.assign(tasks, {
      releaseLease: async (owner: string, id?: string): Promise<void> => {
        if (id !== undefined && Date.now() < failUntil && !owner.startsWith('submit:')) {
          refused++;
          throw new Error('Connection terminated unexpectedly');
        }
        return release(owner, id);
      },
    });
    const created = await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: 'read while the store is away' });
    assert.equal(created.status, 200, created.text);
    const id = created.body['id'] as string;
    await until('a release refused', () => (refused > 0 ? true : undefined), { timeoutMs: 5000, intervalMs: 10 });
    planes.ark.finish([...planes.ark.tasks.keys()].pop() as string);
    const row = await until('settled', async () => {
      const task = await tasks.task(id);
      return task?.settledAt != null ? task : undefined;
    }, { timeoutMs: 10_000, intervalMs: 25 });
    assert.equal(row.status, 'succeeded');
  });
});
