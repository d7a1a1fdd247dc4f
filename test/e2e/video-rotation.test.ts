// Video submissions honour channel rotation as the model routes do, over real HTTP against fake Ark data planes: a
// channel whose submissions failed `errors` of its last `window` is left out; when every channel of the model is out
// the caller gets the model routes' 503 (upstream_overloaded, retry-after) at once, nothing sent; after the back-off
// (on the injected clock) one submission probes the channel, and a served probe puts it back.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FakeArk } from '../helpers/fake-ark.js';
import { ALICE, SEEDANCE, startVideoGateway, startVideoPlanes, type VideoGateway, type VideoPlanes } from '../helpers/video-gateway.js';

const BOOM = { error: { code: 'InternalServiceError', message: 'boom' } };

describe('video submissions and channel rotation', () => {
  let planes: VideoPlanes;
  let v: VideoGateway;
  const clock = { t: 0 };
  before(async () => {
    planes = await startVideoPlanes();
    v = await startVideoGateway(planes, { health: '{ errors: 2, window: 4, probe_after_ms: 10000, probe_max_ms: 40000 }', healthClock: () => clock.t });
  });
  after(async () => {
    await v.stop();
    await planes.close();
  });

  const creates = (ark: FakeArk): number => ark.calls.filter((c) => c.method === 'POST').length;
  const check = (channel: string): string => v.gw.gateway.runtime.current.services.router.rotation.check(channel);
  const submit = (): Promise<Response> =>
    fetch(`${v.gw.url}/v1/video/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: SEEDANCE, prompt: 'a fox waves', seconds: 5 }),
    });

  test('leaves a failing channel out, refuses 503 with retry-after when all are out, probes once after the back-off', async () => {
    const { ark, arkTwo } = planes;
    // ark (priority 1) fails twice: each submission fails over to ark-two; then ark is out.
    for (let i = 0; i < 2; i++) {
      ark.failNext(500, BOOM);
      const res = await submit();
      assert.equal(res.status, 200, await res.text());
    }
    assert.equal(creates(ark), 2);
    assert.equal(check('ark'), 'out');
    assert.equal((await submit()).status, 200);
    assert.equal(creates(ark), 2, 'nothing sent to a channel out of rotation');
    // ark-two fails twice too: now every channel of the model is out.
    for (let i = 0; i < 2; i++) {
      arkTwo.failNext(500, BOOM);
      const failed = await submit();
      assert.ok(failed.status >= 500, String(failed.status));
      assert.equal(failed.headers.get('retry-after'), '1', 'no channel took it: not yet the rotation\'s answer');
    }
    assert.equal(check('ark-two'), 'out');
    const sent = creates(ark) + creates(arkTwo);
    const refused = await submit();
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '10');
    const body = (await refused.json()) as { error?: { code?: string; message?: string } };
    assert.equal(body.error?.code, 'upstream_overloaded');
    assert.match(body.error?.message ?? '', /out of rotation/);
    assert.equal(creates(ark) + creates(arkTwo), sent, 'refused before anything was sent');
    // Due: one submission probes ark (the higher tier's), which serves it: back in.
    clock.t += 10_000;
    const probed = await submit();
    assert.equal(probed.status, 200, await probed.text());
    assert.equal(creates(ark), 3);
    assert.equal(check('ark'), 'in');
    assert.equal(creates(arkTwo), sent - 2, 'ark-two was not sent a second probe in the same plan');
  });
});
