// Isolation of video tasks by id: another key (of another account, or of the same one) cannot read, download, list or
// cancel a key's tasks; it gets exactly the answer of a task that does not exist, and nothing reaches the upstream.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../helpers/poll.js';
import { ALICE, ALICE_TWO, BOB, SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';

describe('video tasks are their key\'s alone', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  let done = '';
  let queued = '';
  before(async () => {
    planes = await startVideoPlanes();
    // No poller reads during the test: every upstream call it counts would be one of the other key's doing.
    v = await startVideoGateway(planes, { pollIntervalMs: 600_000 });
    done = (await v.request(ALICE, 'POST', '/v1/videos', { model: SEEDANCE, prompt: "alice's finished video" })).body['id'] as string;
    planes.ark.finish([...planes.ark.tasks.keys()].pop() as string);
    await until('completed', async () => ((await v.request(ALICE, 'GET', `/v1/videos/${done}`)).body['status'] === 'completed' ? true : undefined), { timeoutMs: 10_000, intervalMs: 25 });
    queued = (await v.request(ALICE, 'POST', '/v1/video/generations', { model: SEEDANCE, prompt: "alice's queued video" })).body['id'] as string;
  });
  after(async () => {
    await v.stop();
    await planes.close();
  });

  test('read, download and cancel by another key answer as an unknown id, and the upstream hears nothing', async () => {
    const calls = planes.ark.calls.length;
    const unknown = 'video_AAAAAAAAAAAAAAAAAAAAAA';
    const answers = async (key: string, id: string) => [
      await v.request(key, 'GET', `/v1/videos/${id}`),
      await v.request(key, 'GET', `/v1/video/generations/${id}`),
      await v.request(key, 'GET', `/v1/videos/${id}/content`),
      await v.request(key, 'DELETE', `/v1/videos/${id}`),
    ];
    const missing = await answers(BOB, unknown);
    for (const key of [BOB, ALICE_TWO]) {
      for (const id of [done, queued]) {
        const got = await answers(key, id);
        got.forEach((answer, i) => {
          const expected = missing[i] as { status: number; body: Record<string, unknown> };
          assert.equal(answer.status, 404, answer.text);
          const error = answer.body['error'] as Record<string, unknown>;
          const expectedError = expected.body['error'] as Record<string, unknown>;
          assert.equal(error['code'], 'video_not_found');
          assert.equal(String(error['message']).replace(id, 'X'), String(expectedError['message']).replace(unknown, 'X'), 'no existence leak');
        });
      }
    }
    assert.equal(planes.ark.calls.length, calls);
    // The owner still has both, the queued one still queued.
    assert.equal((await v.request(ALICE, 'GET', `/v1/videos/${queued}`)).body['status'], 'queued');
  });

  test("another key's list shows none of them, and a cursor naming one of them gives an empty page", async () => {
    for (const key of [BOB, ALICE_TWO]) {
      const list = await v.request(key, 'GET', '/v1/videos?limit=100');
      assert.equal(list.status, 200);
      const ids = (list.body['data'] as Record<string, unknown>[]).map((d) => d['id']);
      assert.ok(!ids.includes(done) && !ids.includes(queued), JSON.stringify(ids));
      const after = await v.request(key, 'GET', `/v1/videos?after=${done}`);
      assert.deepEqual(after.body['data'], []);
      assert.equal(after.body['has_more'], false);
    }
    const own = await v.request(ALICE, 'GET', '/v1/videos?limit=100');
    assert.deepEqual((own.body['data'] as Record<string, unknown>[]).map((d) => d['id']), [queued, done]);
  });
});
