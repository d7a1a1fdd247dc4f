// Webhooks in a running gateway: a video task the mock fails is told to the operator's receiver as video_failed,
// once, signed, by the feature's jobs in the gateway's lifecycle, with the key's name and never the key.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';
import { WebhookReceiver } from '../../test/helpers/webhook-receiver.js';
import { until } from '../../test/helpers/poll.js';

const KEY = 'sk-webhooks-e2e-0123456789abcdef';
/** What makes the mock channel fail a video task (docs/assets-and-video.md). */
const MOCK_VIDEO_FAIL_HOOK = '[mock:fail]';
const SECRET = `whsec_${Buffer.from('thirty-two-bytes-of-hook-secret!').toString('base64')}`;

describe('webhooks in a running gateway', () => {
  let receiver: WebhookReceiver;
  let gw: GatewayUnderTest;

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
        'video: { poll_interval_ms: 100 }',
        'webhooks:',
        `  - { url: "${receiver.url}/hooks", events: [video_failed], secret: "${SECRET}", allow_private: true }`,
        `  - { url: "${receiver.url}/other", events: [channel_down], secret: "${SECRET}", allow_private: true }`,
        '',
      ].join('\n'),
      { videoPollTickMs: 50 },
    );
  });
  after(async () => {
    await gw?.stop();
    await receiver?.close();
  });

  it('tells a failed video task as video_failed, once, signed', async () => {
    const res = await fetch(`${gw.url}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-video', prompt: `A storm ${MOCK_VIDEO_FAIL_HOOK}`, seconds: '4' }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const task = (await res.json()) as { id: string };
    const delivery = await until('the video_failed webhook', () => receiver.received[0], { timeoutMs: 30_000, intervalMs: 50 });
    assert.equal(delivery.path, '/hooks');
    const payload = new Webhook(SECRET).verify(delivery.raw.toString('utf8'), {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    }) as { type: string; data: Record<string, unknown> };
    assert.equal(payload.type, 'video_failed');
    assert.equal(payload.data['task_id'], task.id);
    assert.equal(payload.data['key_name'], 'ci-key');
    assert.equal(payload.data['channel'], 'demo');
    assert.ok(!delivery.raw.toString().includes(KEY), 'never the key');
    // The task is failed for its caller too.
    const read = (await (await fetch(`${gw.url}/v1/videos/${task.id}`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { status: string };
    assert.equal(read.status, 'failed');
    // Sent once: a later pass of the sender finds nothing due (the outbox says delivered).
    await until('the outbox to mark it delivered', async () => {
      const { WEBHOOK_STORE } = await import('./store-part.js');
      const counts = await gw.gateway.runtime.deps.store.part(WEBHOOK_STORE).outbox.counts();
      return counts.delivered === 1 && counts.pending === 0 ? counts : undefined;
    }, { timeoutMs: 10_000, intervalMs: 50 });
    assert.equal(receiver.received.length, 1);
  });
});
