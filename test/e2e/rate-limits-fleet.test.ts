// What two gateway processes share through Redis (issue 24), with PostgreSQL as their store: rpm 30 admits
// exactly 30 of 60 requests spread over both; concurrency 4 keeps the upstream at 4 streams at once while 20 slow
// ones, spread over both and retried on 429, all finish; every slot comes back. A conversation started on one
// continues on the same channel through the other; a channel one cooled down is tried last by the other. Each run has a Redis key prefix of
// its own (deleted after) and a PostgreSQL schema of its own. Skipped, with the reason, without both services. Redis
// is waited for up to 1 s (redis.timeout_ms): this machine may be loaded, and on_failure: closed would turn a slow
// answer into a 503 (README, Several instances).

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { postChat } from '../helpers/chat-requests.js';
import { consoleSignIn } from '../helpers/console-session.js';
import { until } from '../helpers/poll.js';
import { killIfRunning, startFleet, type FleetMember } from '../helpers/cli-process.js';
import { defaultReply, FakeOpenAI } from '../helpers/fake-openai.js';
import { storeBackends } from '../helpers/test-stores.js';

const REDIS_URL = process.env['GATEWAY_TEST_REDIS_URL'];
const postgres = storeBackends().find((b) => b.name === 'postgres');
const skip = REDIS_URL === undefined ? 'GATEWAY_TEST_REDIS_URL is not set (no Redis server to test against; .ci/run sets it)' : postgres?.skip;

const RPM_KEY = 'sk-fleet-rpm-0123456789ab';
const SLOT_KEY = 'sk-fleet-slot-0123456789a';
const ADMIN = 'fleet-admin-token-0123456789';

describe('rate limits shared by two instances (Redis, PostgreSQL)', { skip }, () => {
  const upstream = new FakeOpenAI('up');
  // Two equal channels for conversations (random order between them), and a primary with a backup for cool-downs.
  const twinA = new FakeOpenAI('twin-a');
  const twinB = new FakeOpenAI('twin-b');
  const primary = new FakeOpenAI('primary');
  const backup = new FakeOpenAI('backup');
  const prefix = `gwtest:${process.pid}:${randomUUID()}:`;
  let dir: string;
  let db: { readonly url: string; cleanup(): Promise<void> };
  const gateways: FleetMember[] = [];

  before(async () => {
    await upstream.start();
    for (const fake of [twinA, twinB, primary, backup]) await fake.start();
    dir = await mkdtemp(join(tmpdir(), 'gw-limits-fleet-'));
    db = await (postgres as NonNullable<typeof postgres>).fresh();
    const configPath = join(dir, 'gateway.yaml');
    await writeFile(
      configPath,
      `server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 5000, admin_token: ${ADMIN} }
store: { url: "${db.url}" }
redis: { url: "${REDIS_URL as string}", prefix: "${prefix}", on_failure: closed, timeout_ms: 1000 }
groups:
  pro: { models: ["*"] }
keys:
  - { name: rpm, key: ${RPM_KEY}, group: pro, limits: { rpm: 30 } }
  - { name: slots, key: ${SLOT_KEY}, group: pro, limits: { concurrency: 4 } }
  - { name: aff, key: ${RPM_KEY.replace('rpm', 'aff')}, group: pro }
channels:
  - { name: up, type: openai, base_url: "${upstream.url}", keys: [sk-up], models: ["gpt-*"], models_refresh_ms: 0 }
  - { name: twin-a, type: openai, base_url: "${twinA.url}", keys: [sk-a], models: ["twin-model"], models_refresh_ms: 0 }
  - { name: twin-b, type: openai, base_url: "${twinB.url}", keys: [sk-b], models: ["twin-model"], models_refresh_ms: 0 }
  - { name: primary, type: openai, base_url: "${primary.url}", keys: [sk-p], models: ["cool-model"], priority: 10, cooldown_ms: 60000, models_refresh_ms: 0 }
  - { name: backup, type: openai, base_url: "${backup.url}", keys: [sk-k], models: ["cool-model"], priority: 0, models_refresh_ms: 0 }
`,
    );
    gateways.push(...(await startFleet(configPath, 2)));
  });

  after(async () => {
    for (const g of gateways) killIfRunning(g.cli.proc);
    await upstream.close();
    for (const fake of [twinA, twinB, primary, backup]) await fake.close();
    await db?.cleanup();
    await rm(dir, { recursive: true, force: true });
    const client = createClient({ url: REDIS_URL ?? 'redis://127.0.0.1:6379' });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length > 0) await client.del(keys);
    client.destroy();
  });

  it('GET /admin/instances: each instance lists both (their heartbeats in Redis), itself marked; a key gets 401', async () => {
    const lists = await Promise.all(
      gateways.map(async (g) => {
        const res = await fetch(`${g.url}/admin/instances`, { headers: { authorization: `Bearer ${ADMIN}` } });
        assert.equal(res.status, 200);
        return ((await res.json()) as { object: string; data: { id: string; self: boolean }[] }).data;
      }),
    );
    const [a, b] = lists as [{ id: string; self: boolean }[], { id: string; self: boolean }[]];
    assert.equal(a.length, 2);
    assert.deepEqual(
      a.map((i) => i.id),
      b.map((i) => i.id),
    );
    assert.equal(a.filter((i) => i.self).length, 1);
    assert.notEqual(a.find((i) => i.self)?.id, b.find((i) => i.self)?.id, 'each marks itself');
    assert.equal((await fetch(`${(gateways[0] as FleetMember).url}/admin/instances`, { headers: { authorization: `Bearer ${RPM_KEY}` } })).status, 401);
  });

  it('rpm 30: exactly 30 of 60 requests spread over both instances (about 20 and 40)', async () => {
    const callsBefore = upstream.requests.length;
    const statuses = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const res = await postChat((gateways[i % 3 === 0 ? 0 : 1] as { url: string }).url, { model: 'gpt-4o', messages: [{ role: 'user', content: `hi ${i}` }] }, { key: RPM_KEY });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    assert.deepEqual(
      { ok: statuses.filter((s) => s === 200).length, limited: statuses.filter((s) => s === 429).length },
      { ok: 30, limited: 30 },
      `statuses: ${statuses.join(' ')}`,
    );
    assert.equal(upstream.requests.length - callsBefore, 30);
  });

  it('concurrency 4: 20 slow streams over both instances, retried on 429, never more than 4 at the upstream, all finish', async () => {
    upstream.reply = () => ({ kind: 'stream', pieces: Array.from({ length: 10 }, (_, i) => `s${i} `), delayMs: 20 });
    upstream.maxOpen = 0;
    let refusals = 0;
    const finished = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        for (;;) {
          const res = await postChat((gateways[i % 2] as { url: string }).url, { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: `s ${i}` }] }, { key: SLOT_KEY });
          if (res.status === 429) {
            refusals++;
            await res.arrayBuffer();
            await sleep(50 + Math.random() * 50);
            continue;
          }
          assert.equal(res.status, 200);
          return (await res.text()).includes('[DONE]');
        }
      }),
    );
    assert.equal(finished.filter(Boolean).length, 20);
    assert.ok(upstream.maxOpen <= 4, `the upstream saw ${upstream.maxOpen} at once`);
    assert.ok(refusals > 0, 'some had to wait their turn');
    upstream.reply = (req) => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });
    // Every slot is back in Redis: the four next ones are admitted at once.
    const next = await Promise.all(Array.from({ length: 4 }, (_, i) => postChat((gateways[i % 2] as { url: string }).url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'again' }] }, { key: SLOT_KEY })));
    assert.deepEqual(
      next.map((r) => r.status),
      [200, 200, 200, 200],
    );
    await Promise.all(next.map((r) => r.arrayBuffer()));
  });

  it('a conversation started on one instance continues on the same channel through the other', async () => {
    const [a, b] = gateways as [FleetMember, FleetMember];
    const client = createClient({ url: REDIS_URL ?? 'redis://127.0.0.1:6379' });
    await client.connect();
    const bindings = async (): Promise<number> => {
      let n = 0;
      for await (const keys of client.scanIterator({ MATCH: `${prefix}aff:*`, COUNT: 1000 })) n += keys.length;
      return n;
    };
    // Ten conversations, each started on A, then continued five times on B: without a shared binding B would pick
    // one of the two equal channels at random (each conversation would stay put with odds 1 in 32).
    for (let c = 0; c < 10; c++) {
      const conversation = `conv-${randomUUID()}`;
      const served = (): string[] => [...twinA.requests, ...twinB.requests].filter((r) => r.body['prompt_cache_key'] === conversation).map((r) => (twinA.requests.includes(r) ? 'twin-a' : 'twin-b'));
      const first = await postChat(a.url, { model: 'twin-model', prompt_cache_key: conversation, messages: [{ role: 'user', content: 'start' }] }, { key: RPM_KEY.replace('rpm', 'aff') });
      assert.equal(first.status, 200, await first.clone().text());
      await first.arrayBuffer();
      const startedOn = served()[0];
      // A writes the binding as it answers, not before: a next turn milliseconds later (no real client's pace) could
      // reach B first. The turn waits until the binding is in Redis, as a person's or an agent's next turn would.
      const deadline = Date.now() + 5000;
      while ((await bindings()) < c + 1 && Date.now() < deadline) await sleep(10);
      for (let turn = 0; turn < 5; turn++) {
        const res = await postChat(b.url, { model: 'twin-model', prompt_cache_key: conversation, messages: [{ role: 'user', content: `turn ${turn}` }] }, { key: RPM_KEY.replace('rpm', 'aff') });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      }
      assert.deepEqual(served(), Array(6).fill(startedOn), `conversation ${c}`);
    }
    client.destroy();
  });

  it('a channel cooled down by one instance is tried last by the other', async () => {
    const [a, b] = gateways as [FleetMember, FleetMember];
    // The primary fails once (A fails over to the backup and cools it down), then would answer again.
    let failures = 1;
    primary.reply = (req) => (failures-- > 0 ? { kind: 'status', status: 500, body: { error: { message: 'boom', type: 'server_error' } } } : defaultReply(req));
    const onA = await postChat(a.url, { model: 'cool-model', messages: [{ role: 'user', content: 'on A' }] }, { key: RPM_KEY.replace('rpm', 'aff') });
    assert.equal(onA.status, 200);
    await onA.arrayBuffer();
    assert.deepEqual([primary.requests.length, backup.requests.length], [1, 1], 'A tried the primary, then the backup');
    // B learns of it through Redis's pub/sub: its console shows the primary cooling once it has.
    const operator = await consoleSignIn(b.url, { admin_token: ADMIN });
    await until(
      'B sees the primary cooling',
      async () => {
        const res = await fetch(`${b.url}/console/api/channels`, { headers: { cookie: operator.cookie } });
        const { data } = (await res.json()) as { data: { name: string; cooling: boolean }[] };
        return data.some((c) => c.name === 'primary' && c.cooling) ? true : undefined;
      },
      { timeoutMs: 5000, intervalMs: 20 },
    );
    for (let i = 0; i < 5; i++) {
      const onB = await postChat(b.url, { model: 'cool-model', messages: [{ role: 'user', content: `on B ${i}` }] }, { key: RPM_KEY.replace('rpm', 'aff') });
      assert.equal(onB.status, 200);
      await onB.arrayBuffer();
    }
    assert.deepEqual([primary.requests.length, backup.requests.length], [1, 6], 'B went to the backup first: the primary is cooling for the fleet');
  });
});
