// Redis stopped mid-run under two gateway processes (issue 24), on a redis-server this test starts on a port of its
// own: with `on_failure: open` requests keep being served under per-instance limits (the shared rpm divided by the
// two live instances) and none waits on Redis past its timeout; with `closed` a limited key gets 503 in the
// caller's shape (OpenAI's and Anthropic's) while an unlimited one is served; the outage is logged once per
// instance and counted. When Redis comes back both fleets share their limits again, without a restart. Skipped, with
// the reason, without redis-server or PostgreSQL.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { postChat } from '../helpers/chat-requests.js';
import { killIfRunning, startFleet, type FleetMember } from '../helpers/cli-process.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { series } from '../helpers/metric-series.js';
import { OwnRedis, ownRedisSkip } from '../helpers/own-redis.js';
import { until } from '../helpers/poll.js';
import { storeBackends } from '../helpers/test-stores.js';

const postgres = storeBackends().find((b) => b.name === 'postgres');
const skip = ownRedisSkip ?? postgres?.skip;

const RPM_KEY = 'sk-outage-rpm-0123456789a';
const FRESH_KEY = 'sk-outage-fresh-01234567';
const FREE_KEY = 'sk-outage-free-012345678';

/** A request's status and how long it took, ms. */
async function timed(send: () => Promise<Response>): Promise<{ status: number; ms: number; body: string }> {
  const started = Date.now();
  const res = await send();
  const body = await res.text();
  return { status: res.status, ms: Date.now() - started, body };
}

const chat = (g: FleetMember, key: string, text = 'hi'): Promise<Response> => postChat(g.url, { model: 'gpt-4o', messages: [{ role: 'user', content: text }] }, { key });
const messages = (g: FleetMember, key: string): Promise<Response> =>
  fetch(`${g.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  });

/** An instance's heartbeat entry lives this long past its beat (INSTANCE_TTL_MS in core/shared/redis-state.ts). */
const INSTANCE_TTL_MS = 6000;

/**
 * Resolves once both instances under `prefix` beat after both were listed: each one's heartbeat then counted two live
 * instances. An entry's score is its beat's time (on Redis's clock) plus INSTANCE_TTL_MS.
 */
async function heartbeatsSeen(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    const key = `${prefix}instances`;
    const SOON = { timeoutMs: 15_000, intervalMs: 50 };
    await until(`two instances listed under ${prefix}`, async () => ((await client.zCard(key)) === 2 ? true : undefined), SOON);
    const [seconds, micros] = await client.time();
    const both = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    await until(`both instances beat again under ${prefix}`, async () => ((await client.zCount(key, both + INSTANCE_TTL_MS, '+inf')) === 2 ? true : undefined), SOON);
  } finally {
    await client.quit();
  }
}

describe('Redis stopped and restarted under two instances', { skip }, () => {
  const redis = new OwnRedis();
  const upstream = new FakeOpenAI('up');
  let dir: string;
  let db: { readonly url: string; cleanup(): Promise<void> };
  const open: FleetMember[] = [];
  const closed: FleetMember[] = [];

  async function fleet(onFailure: 'open' | 'closed'): Promise<FleetMember[]> {
    const configPath = join(dir, `${onFailure}.yaml`);
    await writeFile(
      configPath,
      `server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 5000 }
store: { url: "${db.url}" }
redis: { url: "${redis.url}", prefix: "${onFailure}:", on_failure: ${onFailure} }
groups:
  pro: { models: ["*"] }
keys:
  - { name: rpm, key: ${RPM_KEY}, group: pro, limits: { rpm: 20 } }
  - { name: fresh, key: ${FRESH_KEY}, group: pro, limits: { rpm: 6 } }
  - { name: free, key: ${FREE_KEY}, group: pro }
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up], models: ["gpt-*"], models_refresh_ms: 0 }
`,
    );
    return startFleet(configPath, 2);
  }

  before(async () => {
    await redis.start();
    await upstream.start();
    dir = await mkdtemp(join(tmpdir(), 'gw-redis-outage-'));
    db = await (postgres as NonNullable<typeof postgres>).fresh();
    open.push(...(await fleet('open')));
    closed.push(...(await fleet('closed')));
    // Each instance has seen the other's heartbeat (every 2 s): the live count that `open` divides by is 2.
    for (const prefix of ['open:', 'closed:']) await heartbeatsSeen(redis.url, prefix);
  });

  after(async () => {
    for (const g of [...open, ...closed]) killIfRunning(g.cli.proc);
    await upstream.close();
    await redis.stop();
    await db?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('open: served under per-instance limits (rpm 20 over 2 instances: 10 each), none waiting past the timeout', async () => {
    const [a, b] = open as [FleetMember, FleetMember];
    assert.equal((await timed(() => chat(a, RPM_KEY))).status, 200, 'served on Redis before the outage');
    await redis.stop();
    const answers: { on: string; status: number; ms: number; body: string }[] = [];
    for (let i = 0; i < 15; i++) for (const g of [a, b]) answers.push({ on: g === a ? 'A' : 'B', ...(await timed(() => chat(g, RPM_KEY, `down ${i}`))) });
    const admitted = (on: string): number => answers.filter((x) => x.on === on && x.status === 200).length;
    assert.deepEqual({ A: admitted('A'), B: admitted('B') }, { A: 10, B: 10 }, answers.map((x) => `${x.on} ${x.status}`).join(' '));
    assert.deepEqual(new Set(answers.map((x) => x.status)), new Set([200, 429]));
    // A request that waited on Redis until a socket timeout (5 s) or for a reconnection would show here.
    const slowest = Math.max(...answers.map((x) => x.ms));
    assert.ok(slowest < 1500, `a request took ${slowest} ms while Redis was down`);
    for (const g of [a, b]) {
      const errors = series(await (await fetch(`${g.url}/metrics`)).text(), 'gateway_shared_state_errors_total');
      assert.ok((errors['{use="limits"}'] ?? 0) >= 1, JSON.stringify(errors));
      assert.equal(g.cli.output.stderr.split('Redis is unreachable: rate limits now hold per instance').length - 1, 1, 'logged once');
    }
  });

  it('closed: 503 in the caller\'s shape for a limited key; an unlimited key is served', async () => {
    const [a, b] = closed as [FleetMember, FleetMember];
    for (const g of [a, b]) {
      const refused = await timed(() => chat(g, RPM_KEY));
      assert.equal(refused.status, 503, refused.body);
      assert.equal((JSON.parse(refused.body) as { error: { code: string } }).error.code, 'rate_limits_unavailable');
      assert.ok(refused.ms < 1500, `the 503 took ${refused.ms} ms`);
      const anthropic = await timed(() => messages(g, RPM_KEY));
      assert.equal(anthropic.status, 503);
      assert.deepEqual(Object.keys(JSON.parse(anthropic.body) as object), ['type', 'error']);
      assert.equal((JSON.parse(anthropic.body) as { error: { type: string } }).error.type, 'overloaded_error');
      assert.equal((await timed(() => chat(g, FREE_KEY))).status, 200, 'a key without limits needs no Redis');
    }
  });

  it('Redis back: both fleets share their limits again, without a restart', async () => {
    await redis.start();
    const [ca, cb] = closed as [FleetMember, FleetMember];
    // closed: served again on each instance once its client has reconnected (by itself, within seconds).
    for (const g of [ca, cb]) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const { status } = await timed(() => chat(g, FRESH_KEY));
        if (status === 200) break;
        assert.equal(status, 503);
        if (Date.now() > deadline) assert.fail('the closed fleet never recovered');
        await sleep(50);
      }
    }
    // open: the limit is the fleet's again. rpm 6 sent all to A: 6 admitted (per instance it would be 3).
    const [a, b] = open as [FleetMember, FleetMember];
    const deadline = Date.now() + 15_000;
    while (!b.cli.output.stderr.includes('Redis answers again') || !a.cli.output.stderr.includes('Redis answers again')) {
      // Each instance notices at its next limited request.
      await (await chat(a, FREE_KEY)).arrayBuffer();
      await (await chat(a, RPM_KEY)).arrayBuffer();
      await (await chat(b, RPM_KEY)).arrayBuffer();
      if (Date.now() > deadline) assert.fail('the open fleet never went back to Redis');
      await sleep(50);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await timed(() => chat(a, FRESH_KEY))).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429]);
    const onB = await timed(() => chat(b, FRESH_KEY));
    assert.equal(onB.status, 429, 'B sees what A used: one limit for the fleet');
  });
});
