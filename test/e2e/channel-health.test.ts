// Channels that heal themselves (issue 45), over real HTTP on loopback with fake OpenAI upstreams and the official
// clients: two instances sharing Redis (a SQLite store each) take a channel that failed 5 of its last 10 requests
// out of rotation together; then it sees no request but its probes, one at a time fleet-wide, on the injected clock
// (never a sleep: the back-off reads the clock the test moves); a served probe puts it back on both; the webhooks
// channel_down and channel_up arrive once each. A caller's 400s never take a channel out. Every channel of a model
// out: 503 with retry-after at once, in the OpenAI and Anthropic shapes. Without Redis each instance counts its own.
// Skipped, with the reason, without Redis.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createClient } from 'redis';
import { FakeAnthropic } from '../helpers/fake-anthropic.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { WEBHOOK_STORE } from '../../features/webhooks/store-part.js';

const REDIS_URL = process.env['GATEWAY_TEST_REDIS_URL'];
const KEY = 'sk-health-e2e-0123456789abcdef';
const SECRET = `whsec_${Buffer.from('thirty-two-bytes-of-hook-secret!').toString('base64')}`;
const WAIT = { timeoutMs: 10_000, intervalMs: 20 };
const FAIL = { kind: 'status', status: 500, body: { error: { message: 'boom', type: 'server_error' } } } as const;

function config(urls: { flaky: string; steady: string; solo: string; strict: string; anth?: string }, extra: string): string {
  const health = 'health: { errors: 5, window: 10, probe_after_ms: 10000, probe_max_ms: 40000 }';
  return [
    'server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 2000 }',
    'store: { url: "sqlite:./gateway.db" }',
    // cooldown_ms 0: the one-failure cool-down would put the failing channel last and keep it from its count.
    'channels:',
    `  - { name: flaky, type: openai, base_url: "${urls.flaky}", keys: [sk-f], models: ["duo"], priority: 10, cooldown_ms: 0, models_refresh_ms: 0, ${health} }`,
    `  - { name: steady, type: openai, base_url: "${urls.steady}", keys: [sk-s], models: ["duo"], priority: 0, cooldown_ms: 0, models_refresh_ms: 0 }`,
    `  - { name: solo, type: openai, base_url: "${urls.solo}", keys: [sk-o], models: ["solo"], cooldown_ms: 0, models_refresh_ms: 0, ${health} }`,
    `  - { name: strict, type: openai, base_url: "${urls.strict}", keys: [sk-t], models: ["strict"], cooldown_ms: 0, models_refresh_ms: 0 }`,
    // Served to OpenAI clients through translation (what cannot be translated is refused before anything is sent).
    ...(urls.anth === undefined ? [] : [`  - { name: anth, type: anthropic, base_url: "${urls.anth}", keys: [sk-a], models: ["trans"], cooldown_ms: 0, models_refresh_ms: 0, ${health} }`]),
    // The top-level default: strict's.
    'health: { errors: 2, window: 4 }',
    'groups: { default: { models: ["*"] } }',
    `keys: [{ name: ci-key, key: "${KEY}", group: default }]`,
    extra,
    '',
  ].join('\n');
}

const openai = (gw: GatewayUnderTest): OpenAI => new OpenAI({ apiKey: KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });

async function chat(gw: GatewayUnderTest, model = 'duo'): Promise<string> {
  const res = await openai(gw).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
  return res.choices[0]?.message.content ?? '';
}

/** The channel's state on this instance (a memory read, as the router's). */
const check = (gw: GatewayUnderTest, channel: string): string => gw.gateway.runtime.current.services.router.rotation.check(channel);

async function changesCounted(gws: readonly GatewayUnderTest[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const gw of gws) {
    const metric = await gw.gateway.runtime.deps.metrics.registry.getSingleMetric('gateway_channel_health_changes_total')?.get();
    for (const v of metric?.values ?? []) {
      const name = `${String(v.labels['channel'])}:${String(v.labels['change'])}`;
      counts[name] = (counts[name] ?? 0) + v.value;
    }
  }
  return counts;
}

describe('channel health shared by two instances (Redis, SQLite each)', { skip: REDIS_URL === undefined ? 'GATEWAY_TEST_REDIS_URL is not set (no Redis server to test against; .ci/run sets it)' : undefined }, () => {
  const flaky = new FakeOpenAI('flaky');
  const steady = new FakeOpenAI('steady');
  const solo = new FakeOpenAI('solo');
  const strict = new FakeOpenAI('strict');
  const prefix = `gwtest:${process.pid}:${randomUUID()}:`;
  const clock = { t: 1_000_000 };
  let receiver: WebhookReceiver;
  const gws: GatewayUnderTest[] = [];

  before(async () => {
    for (const fake of [flaky, steady, solo, strict]) await fake.start();
    receiver = await new WebhookReceiver().start();
    const yaml = config(
      { flaky: flaky.url, steady: steady.url, solo: solo.url, strict: strict.url },
      [
        `redis: { url: "${REDIS_URL as string}", prefix: "${prefix}", timeout_ms: 1000 }`,
        'webhooks:',
        `  - { url: "${receiver.url}/hooks", events: [channel_down, channel_up], secret: "${SECRET}", allow_private: true }`,
      ].join('\n'),
    );
    for (let i = 0; i < 2; i++) gws.push(await startGatewayUnderTest(yaml, { healthClock: () => clock.t }));
  });

  after(async () => {
    for (const gw of gws) await gw.stop();
    for (const fake of [flaky, steady, solo, strict]) await fake.close();
    await receiver?.close();
    const client = createClient({ url: REDIS_URL ?? 'redis://127.0.0.1:6379' });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length > 0) await client.del(keys);
    await client.quit();
  });

  it('takes a channel out on both after 5 failures of 10, sends it only single probes, puts it back after a served one', async () => {
    const [a, b] = gws as [GatewayUnderTest, GatewayUnderTest];
    // 5 successes, then 5 failures, alternating instances: counted fleet-wide (neither saw 5 alone).
    for (let i = 0; i < 5; i++) assert.match(await chat(gws[i % 2] as GatewayUnderTest), /./);
    assert.equal(check(a, 'flaky'), 'in');
    flaky.reply = () => FAIL;
    for (let i = 0; i < 5; i++) await chat(gws[i % 2] as GatewayUnderTest);
    assert.equal(flaky.requests.length, 10);
    await until('flaky out on both instances', () => (check(a, 'flaky') === 'out' && check(b, 'flaky') === 'out' ? true : undefined), WAIT);
    const served = steady.requests.length;
    for (let i = 0; i < 6; i++) await chat(gws[i % 2] as GatewayUnderTest);
    assert.equal(flaky.requests.length, 10, 'no request reaches a channel out of rotation');
    assert.equal(steady.requests.length, served + 6);

    // Due: the first request takes the probe; held upstream, every other request on both instances skips the channel.
    clock.t += 10_000;
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    flaky.gate = () => held;
    const probe = chat(a);
    await until('the probe to reach flaky', () => (flaky.requests.length === 11 ? true : undefined), WAIT);
    for (let i = 0; i < 6; i++) await chat(gws[i % 2] as GatewayUnderTest);
    assert.equal(flaky.requests.length, 11, 'one probe fleet-wide');
    release();
    flaky.gate = null;
    await probe;
    // The probe failed: out again on both, for twice as long (20 s on the injected clock).
    await until('the failed probe told to both', () => (gws.every((gw) => gw.gateway.runtime.current.services.router.rotation.dueInMs('flaky') === 20_000) ? true : undefined), WAIT);
    clock.t += 10_000;
    for (let i = 0; i < 4; i++) await chat(gws[i % 2] as GatewayUnderTest);
    assert.equal(flaky.requests.length, 11);

    // Due again; the upstream recovered: its probe (through b) is served by it, and it is back on both.
    clock.t += 10_000;
    flaky.reply = () => ({ kind: 'completion', text: 'flaky is back' });
    assert.equal(await chat(b), 'flaky is back');
    assert.equal(flaky.requests.length, 12);
    await until('flaky back on both instances', () => (check(a, 'flaky') === 'in' && check(b, 'flaky') === 'in' ? true : undefined), WAIT);
    assert.equal(await chat(a), 'flaky is back');
    assert.equal(flaky.requests.length, 13);

    // Told once per fleet: the instance whose script flipped the state.
    const hooks = await until('channel_down and channel_up delivered', () => (receiver.received.length >= 2 ? receiver.received : undefined), { timeoutMs: 30_000, intervalMs: 50 });
    await until('both outboxes settled', async () => {
      const counts = await Promise.all(gws.map((gw) => gw.gateway.runtime.deps.store.part(WEBHOOK_STORE).outbox.counts()));
      return counts.every((c) => c.pending === 0) ? counts : undefined;
    }, WAIT);
    const types = receiver.received.map((r) => (JSON.parse(r.raw.toString('utf8')) as { type: string; data: Record<string, unknown> }));
    assert.deepEqual(types.map((t) => t.type).sort(), ['channel_down', 'channel_up']);
    assert.equal(hooks.length, 2);
    assert.deepEqual(types.map((t) => t.data['channel']), ['flaky', 'flaky']);
    const counted = await changesCounted(gws);
    assert.deepEqual([counted['flaky:errors'], counted['flaky:probe_failed'], counted['flaky:probe_served']], [1, 1, 1]);
  });

  it('never takes a channel out for the caller\'s 400s', async () => {
    strict.reply = () => ({ kind: 'status', status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error' } } });
    for (let i = 0; i < 8; i++) {
      await assert.rejects(chat(gws[i % 2] as GatewayUnderTest, 'strict'), (err: unknown) => err instanceof OpenAI.APIError && err.status === 400);
    }
    assert.equal(strict.requests.length, 8, 'every request reached it');
    for (const gw of gws) assert.equal(check(gw, 'strict'), 'in');
  });

  it('refuses at once with 503 and retry-after when every channel of the model is out (OpenAI and Anthropic shapes)', async () => {
    solo.reply = () => FAIL;
    for (let i = 0; i < 5; i++) await assert.rejects(chat(gws[i % 2] as GatewayUnderTest, 'solo'));
    await until('solo out on both instances', () => (gws.every((gw) => check(gw, 'solo') === 'out') ? true : undefined), WAIT);
    const [a, b] = gws as [GatewayUnderTest, GatewayUnderTest];
    clock.t += 4_000;
    const refusedOpenAI = await openai(a).chat.completions.create({ model: 'solo', messages: [{ role: 'user', content: 'hi' }] }).then(() => null, (err: unknown) => err);
    assert.ok(refusedOpenAI instanceof OpenAI.APIError, String(refusedOpenAI));
    assert.equal(refusedOpenAI.status, 503);
    assert.equal(refusedOpenAI.headers?.get('retry-after'), '6');
    assert.match(refusedOpenAI.message, /out of rotation/);
    assert.equal(refusedOpenAI.code, 'upstream_overloaded');
    const anthropic = new Anthropic({ apiKey: KEY, authToken: null, baseURL: b.url, maxRetries: 0 });
    const refusedAnthropic = await anthropic.messages.create({ model: 'solo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).then(() => null, (err: unknown) => err);
    assert.ok(refusedAnthropic instanceof Anthropic.APIError, String(refusedAnthropic));
    assert.equal(refusedAnthropic.status, 503);
    assert.equal(refusedAnthropic.headers?.get('retry-after'), '6');
    assert.equal((refusedAnthropic.error as { error?: { type?: string } } | undefined)?.error?.type, 'overloaded_error');
    assert.equal(solo.requests.length, 5, 'nothing sent to a channel out of rotation');
  });
});

describe('channel health without Redis: each instance its own', () => {
  const flaky = new FakeOpenAI('flaky');
  const steady = new FakeOpenAI('steady');
  const anth = new FakeAnthropic('anth');
  const clock = { t: 0 };
  const gws: GatewayUnderTest[] = [];

  before(async () => {
    await flaky.start();
    await steady.start();
    await anth.start();
    const yaml = config({ flaky: flaky.url, steady: steady.url, solo: steady.url, strict: steady.url, anth: anth.url }, '');
    for (let i = 0; i < 2; i++) gws.push(await startGatewayUnderTest(yaml, { healthClock: () => clock.t }));
  });

  after(async () => {
    for (const gw of gws) await gw.stop();
    await flaky.close();
    await steady.close();
    await anth.close();
  });

  it('takes a channel out on the instance that saw it fail 5 times, not on the other', async () => {
    const [a, b] = gws as [GatewayUnderTest, GatewayUnderTest];
    flaky.reply = () => FAIL;
    for (let i = 0; i < 5; i++) await chat(a);
    assert.equal(check(a, 'flaky'), 'out');
    await chat(a);
    assert.equal(flaky.requests.length, 5);
    assert.equal(check(b, 'flaky'), 'in');
    await chat(b);
    assert.equal(flaky.requests.length, 6, 'the other instance still sends to it');
    // a's probe, on the injected clock.
    clock.t += 10_000;
    flaky.reply = () => ({ kind: 'completion', text: 'fine again' });
    assert.equal(await chat(a), 'fine again');
    assert.equal(check(a, 'flaky'), 'in');
  });

  it('gives a probe back at once when its client leaves while it is sent: the next request probes', async () => {
    const [a] = gws as [GatewayUnderTest];
    flaky.reply = () => FAIL;
    for (let i = 0; i < 5; i++) await chat(a);
    assert.equal(check(a, 'flaky'), 'out');
    clock.t += 10_000;
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    flaky.gate = () => held;
    const sent = flaky.requests.length;
    const leaving = new AbortController();
    const probe = openai(a).chat.completions.create({ model: 'duo', messages: [{ role: 'user', content: 'hi' }] }, { signal: leaving.signal }).catch((err: unknown) => err);
    await until('the probe to reach flaky', () => (flaky.requests.length === sent + 1 ? true : undefined), WAIT);
    assert.equal(check(a, 'flaky'), 'out', 'probing: no other request is sent to it');
    leaving.abort();
    await probe;
    // No outcome (the caller left): due again now, not after the probe's lease.
    await until('flaky due again', () => (check(a, 'flaky') === 'due' ? true : undefined), WAIT);
    release();
    flaky.gate = null;
    flaky.reply = () => ({ kind: 'completion', text: 'probed again' });
    assert.equal(await chat(a), 'probed again');
    assert.equal(check(a, 'flaky'), 'in');
  });

  it('claims no probe for a request its channel cannot be sent (a refused translation): the next request probes', async () => {
    const [a] = gws as [GatewayUnderTest];
    anth.reply = () => ({ kind: 'status', status: 500 });
    for (let i = 0; i < 5; i++) await assert.rejects(chat(a, 'trans'));
    assert.equal(check(a, 'anth'), 'out');
    clock.t += 10_000;
    // n: 2 cannot be said to an Anthropic upstream: refused before anything is sent.
    const refused = await openai(a).chat.completions.create({ model: 'trans', n: 2, messages: [{ role: 'user', content: 'hi' }] }).then(() => null, (err: unknown) => err);
    assert.ok(refused instanceof OpenAI.APIError && refused.status === 400, String(refused));
    assert.equal(anth.requests.length, 5, 'nothing sent');
    assert.equal(check(a, 'anth'), 'due', 'no probe held by a request that sent nothing');
    anth.reply = () => ({ kind: 'message', content: [{ type: 'text', text: 'anth is back' }] });
    assert.equal(await chat(a, 'trans'), 'anth is back');
    assert.equal(check(a, 'anth'), 'in');
  });
});
