// A failed video task is told to the webhooks with its usage record, so an instance that stopped between settling a
// task and telling it loses no event: the task settled by the compare-and-set alone (as such a settler leaves it) is
// recorded and told by the video sweep, once, with the task's error, and a second sweep tells nothing more.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VideoPoller } from '../../features/video/poller.js';
import { videoDepsOf } from '../../features/video/services.js';
import { VIDEO_TASKS } from '../../features/video/store-part.js';
import { WEBHOOK_STORE } from '../../features/webhooks/store-part.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { until } from '../helpers/poll.js';

const KEY = 'sk-video-failed-sweep-0123456789abcdef';
const SECRET = `whsec_${Buffer.from('thirty-two-bytes-of-hook-secret!').toString('base64')}`;

describe('a failed video task whose settler stopped before telling it', () => {
  let receiver: WebhookReceiver;
  let gw: GatewayUnderTest;
  /** The mock's task clock, held still: no poll ends the task before the test settles it. */
  const frozenAt = Date.now();

  before(async () => {
    receiver = await new WebhookReceiver().start();
    gw = await startGatewayUnderTest(
      [
        'server: { host: 127.0.0.1, port: 0 }',
        'store: { url: "sqlite:./gateway.db" }',
        'channels:',
        '  - { name: demo, type: mock, models: ["*"] }',
        'groups: { default: { models: ["*"] } }',
        `keys: [{ name: ci-key, key: "${KEY}", group: default }]`,
        'webhooks:',
        `  - { url: "${receiver.url}/hooks", events: [video_failed], secret: "${SECRET}", allow_private: true }`,
        '',
      ].join('\n'),
      { mockClock: () => frozenAt },
    );
  });
  after(async () => {
    await gw?.stop();
    await receiver?.close();
  });

  it('is recorded and told by the sweep, once', async () => {
    const res = await fetch(`${gw.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-video', prompt: 'A calm sea', seconds: '4' }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const task = (await res.json()) as { id: string };
    const store = gw.gateway.runtime.deps.store;
    const won = await store.part(VIDEO_TASKS).settleTask(task.id, {
      status: 'failed',
      progress: 100,
      resultUrl: null,
      errorCode: 'InternalServiceError',
      errorMessage: 'the settler died',
      totalTokens: null,
      seconds: null,
      cost: 0n,
      priceVersion: null,
      at: Date.now(),
    });
    assert.equal(won, true);
    assert.equal(receiver.received.length, 0, 'nothing told by the compare-and-set alone');
    const poller = new VideoPoller({ owner: 'sweep-test', deps: () => videoDepsOf(gw.gateway.runtime.current.services) });
    await poller.sweep(Date.now() + 60_000);
    await poller.sweep(Date.now() + 60_000);
    assert.notEqual((await store.part(VIDEO_TASKS).task(task.id))?.recordedAt, null, 'recorded, after it was told');
    const told = await until('the video_failed webhook', () => receiver.received[0], { timeoutMs: 30_000, intervalMs: 50 });
    const payload = JSON.parse(told.raw.toString()) as { type: string; data: Record<string, unknown> };
    assert.deepEqual([payload.type, payload.data['task_id'], payload.data['error_code'], payload.data['error_message']], ['video_failed', task.id, 'InternalServiceError', 'the settler died']);
    const counts = await until('the outbox to mark it delivered', async () => {
      const c = await store.part(WEBHOOK_STORE).outbox.counts();
      return c.pending === 0 && c.delivered >= 1 ? c : undefined;
    }, { timeoutMs: 10_000, intervalMs: 50 });
    assert.equal(counts.delivered, 1, 'kept once: the second sweep found the task recorded');
    assert.equal(receiver.received.length, 1);
  });
});
