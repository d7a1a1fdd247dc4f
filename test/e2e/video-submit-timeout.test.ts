// A video submission the upstream never answers, against a fake Ark data plane that holds the create call open: the
// caller gets 504 upstream_timeout (the task may exist upstream: not failed over, not charged), the task is kept as
// failed for the caller to see, and the channel counts the timeout as its failure in rotation (here one failure of
// a window of two takes it out). Never a 500: the submission's own deadline ending the call is the channel's timeout.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ALICE, SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';

describe('a video submission the upstream never answers', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  before(async () => {
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes, { timeoutMs: 300, health: '{ errors: 1, window: 2, probe_after_ms: 600000, probe_max_ms: 600000 }' });
  });
  after(async () => {
    await v.stop();
    await planes.close();
  });

  test('is a 504 upstream_timeout, a failed task, and the channel\'s failure in rotation', async () => {
    planes.ark.stallNext();
    const res = await fetch(`${v.gw.url}/v1/video/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: SEEDANCE, prompt: 'a fox waits', seconds: 5 }),
    });
    const text = await res.text();
    assert.equal(res.status, 504, text);
    assert.equal((JSON.parse(text) as { error?: { code?: string } }).error?.code, 'upstream_timeout');
    assert.equal(planes.ark.calls.filter((c) => c.method === 'POST').length, 1, 'sent once: the task may exist, so not failed over');
    assert.equal(planes.arkTwo.calls.filter((c) => c.method === 'POST').length, 0);
    assert.equal(v.gw.gateway.runtime.current.services.router.rotation.check('ark'), 'out', 'the timeout counted as the channel\'s failure');
  });
});
