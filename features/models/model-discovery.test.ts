// GET /v1/models is the authoritative list: a channel's glob patterns are expanded over what its upstream lists
// on its own GET /v1/models (read at start and every models_refresh_ms), over real HTTP against the fakes, with
// the official SDKs. A pattern that matches nothing discovered is listed as configured; a failed read keeps
// the last good list; reads never delay start-up, requests or stop; a reload keeps the lists of unchanged channels.

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { FakeAnthropic } from '../../test/helpers/fake-anthropic.js';
import { FakeOpenAI } from '../../test/helpers/fake-openai.js';
import { TEST_KEY, startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';
import { until, withDeadline } from '../../test/helpers/poll.js';

const PRIVATE_KEY = 'sk-private-0123456789abcdefgh';
const POLL = { timeoutMs: 10_000, intervalMs: 20 };
/** Short, so a test sees a refresh; the first read is at start whatever this is. */
const REFRESH_MS = 100;

/** A config with a group that reaches only glob patterns (`private`) and one that reaches everything (`pro`). */
function configFor(channels: string): string {
  return `server:
  port: 0
  host: 127.0.0.1
  shutdown_grace_ms: 2000
store:
  url: sqlite:./gateway.db
channels:
${channels}
groups:
  private:
    models: ["priv-*", "nothing-*"]
  pro:
    models: ["*"]
keys:
  - name: private
    key: ${PRIVATE_KEY}
    group: private
  - name: tester
    key: ${TEST_KEY}
    group: pro
`;
}

function channelBlock(name: string, type: 'openai' | 'anthropic', url: string, models: readonly string[], extra = ''): string {
  return `  - name: ${name}
    type: ${type}
    base_url: ${url}
    keys: ["sk-upstream-${name}"]
    models: ${JSON.stringify(models)}
    models_refresh_ms: ${REFRESH_MS}
    cooldown_ms: 0
${extra}`;
}

function openAI(gw: GatewayUnderTest, apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });
}

async function listIds(client: OpenAI): Promise<string[]> {
  const ids: string[] = [];
  for await (const model of client.models.list()) ids.push(model.id);
  return ids;
}

/** Polls the caller's list until it equals `expected` (a refresh is asynchronous). */
async function listBecomes(client: OpenAI, expected: readonly string[], what: string): Promise<void> {
  await until(what, async () => ((await listIds(client)).join() === expected.join() ? true : undefined), POLL);
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

test('/v1/models lists discovered models for a glob-only group (openai SDK), and a pattern matching nothing as configured', async () => {
  const upstream = await new FakeOpenAI('priv').start();
  upstream.modelList.ids = ['priv-alpha', 'gpt-4o', 'priv-beta', 'public-x'];
  const gw = await startGatewayUnderTest(configFor(channelBlock('priv', 'openai', upstream.url, ['priv-*', 'nothing-*'])));
  try {
    await gw.modelsDiscovered();
    const client = openAI(gw, PRIVATE_KEY);
    assert.deepEqual(await listIds(client), ['nothing-*', 'priv-alpha', 'priv-beta']);

    const model = await client.models.retrieve('priv-beta');
    assert.equal(model.id, 'priv-beta');
    await assert.rejects(client.models.retrieve('gpt-4o'), (err: unknown) => err instanceof OpenAI.NotFoundError);
    // The key's group may not use what the upstream lists beside priv-*, and the full group sees no more of it.
    assert.deepEqual(await listIds(openAI(gw, TEST_KEY)), ['nothing-*', 'priv-alpha', 'priv-beta']);

    // What was read: the upstream's own GET /v1/models with the channel's key, not counted as a chat request.
    const [read] = upstream.modelList.requests;
    assert.equal(read?.path, '/v1/models');
    assert.equal(read?.headers['authorization'], 'Bearer sk-upstream-priv');
    assert.equal(upstream.requests.length, 0);
    const reply = await client.chat.completions.create({ model: 'priv-alpha', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(reply.choices[0]?.message.content, 'reply from priv');
  } finally {
    await gw.stop();
    await upstream.close();
  }
});

test('a refresh picks up a changed upstream list; failed reads (HTTP 500, not JSON, not a list) keep the last good one', async () => {
  const upstream = await new FakeOpenAI('priv').start();
  upstream.modelList.ids = ['priv-alpha', 'priv-beta'];
  const gw = await startGatewayUnderTest(configFor(channelBlock('priv', 'openai', upstream.url, ['priv-*'])));
  try {
    const client = openAI(gw, PRIVATE_KEY);
    await listBecomes(client, ['priv-alpha', 'priv-beta'], 'the first list');

    upstream.modelList.ids = ['priv-alpha', 'priv-gamma'];
    await listBecomes(client, ['priv-alpha', 'priv-gamma'], 'the refreshed list');

    for (const fault of [{ status: 500 }, { raw: '{"object":"list","data":[' }, { raw: '{"error":"nope"}' }]) {
      upstream.modelList.fault = fault;
      const seen = upstream.modelList.requests.length;
      // Two failed reads after the fault was set: the list the route answers has seen at least one.
      await until(`two reads answered ${JSON.stringify(fault)}`, () => (upstream.modelList.requests.length >= seen + 2 ? true : undefined), POLL);
      assert.deepEqual(await listIds(client), ['priv-alpha', 'priv-gamma'], `after ${JSON.stringify(fault)}`);
    }

    upstream.modelList.fault = null;
    upstream.modelList.ids = ['priv-delta'];
    await listBecomes(client, ['priv-delta'], 'the list after the upstream recovered');
    assert.equal(upstream.requests.length, 0, 'model list reads are not chat requests');
  } finally {
    await gw.stop();
    await upstream.close();
  }
});

test('an Anthropic channel is read page by page (limit, has_more, after_id) with x-api-key and anthropic-version', async () => {
  const upstream = await new FakeAnthropic('anth').start();
  const ids = Array.from({ length: 2_345 }, (_, i) => `priv-claude-${String(i).padStart(4, '0')}`);
  upstream.modelList.ids = [...ids, 'claude-other'];
  const gw = await startGatewayUnderTest(configFor(channelBlock('anth', 'anthropic', upstream.url, ['priv-claude-*'])));
  try {
    await gw.modelsDiscovered();
    const paths = upstream.modelList.requests.slice(0, 3).map((r) => r.path);
    assert.deepEqual(paths, ['/v1/models?limit=1000', '/v1/models?limit=1000&after_id=priv-claude-0999', '/v1/models?limit=1000&after_id=priv-claude-1999']);
    for (const read of upstream.modelList.requests) {
      assert.equal(read.headers['x-api-key'], 'sk-upstream-anth');
      assert.equal(read.headers['anthropic-version'], '2023-06-01');
      assert.equal(read.headers['authorization'], undefined);
    }

    // An Anthropic client pages through the gateway's list the same way.
    const client = new Anthropic({ apiKey: PRIVATE_KEY, baseURL: gw.url, maxRetries: 0 });
    const listed: string[] = [];
    for await (const model of client.models.list({ limit: 1000 })) listed.push(model.id);
    assert.deepEqual(listed, ids, 'every discovered id the glob matches, in order, nothing else');
    assert.equal((await client.models.retrieve('priv-claude-2344')).id, 'priv-claude-2344');
  } finally {
    await gw.stop();
    await upstream.close();
  }
});

test('start-up, /v1/models and stop never wait for a read: a hanging or refused upstream lists its patterns as configured', async () => {
  const upstream = await new FakeOpenAI('hang').start();
  upstream.modelList.fault = { hang: true };
  const refused = `http://127.0.0.1:${await closedPort()}`;
  const started = Date.now();
  const gw = await withDeadline(
    startGatewayUnderTest(
      configFor(
        channelBlock('hang', 'openai', upstream.url, ['priv-hang-*'], '    timeout_ms: 60000\n') +
          channelBlock('gone', 'openai', refused, ['priv-gone-*']) +
          '  - name: demo\n    type: mock\n    models: ["priv-mock-*"]\n',
      ),
    ),
    5_000,
    'the gateway started',
  );
  try {
    await until('the hanging read to arrive', () => (upstream.modelList.requests.length > 0 ? true : undefined), POLL);
    const client = openAI(gw, PRIVATE_KEY);
    assert.deepEqual(await listIds(client), ['priv-gone-*', 'priv-hang-*', 'priv-mock-*']);
    assert.ok(Date.now() - started < 5_000);
  } finally {
    // The read still hangs (timeout_ms 60 s): stop aborts it instead of waiting.
    await withDeadline(gw.stop(), 5_000, 'the gateway stopped with a model list read in progress');
    await upstream.close();
  }
});

test('a reload keeps the discovered list of an unchanged channel while it reads again; a changed key starts from the patterns', async () => {
  const upstream = await new FakeOpenAI('priv').start();
  upstream.modelList.ids = ['priv-alpha', 'priv-beta'];
  // One read per config load: the reads seen are the loads' first ones.
  const yaml = configFor(channelBlock('priv', 'openai', upstream.url, ['priv-*'])).replace(`models_refresh_ms: ${REFRESH_MS}`, 'models_refresh_ms: 600000');
  const gw = await startGatewayUnderTest(yaml);
  try {
    await gw.modelsDiscovered();
    const client = openAI(gw, PRIVATE_KEY);
    assert.deepEqual(await listIds(client), ['priv-alpha', 'priv-beta']);

    // From now on no read answers: what the list shows after a reload is what the reload kept.
    upstream.modelList.fault = { hang: true };
    const reads = upstream.modelList.requests.length;
    await gw.writeConfig(yaml.replace('shutdown_grace_ms: 2000', 'shutdown_grace_ms: 2001'));
    assert.equal(await gw.gateway.reload(), true);
    await until('the new config to read', () => (upstream.modelList.requests.length > reads ? true : undefined), POLL);
    assert.deepEqual(await listIds(client), ['priv-alpha', 'priv-beta'], 'no flicker for an unchanged channel');

    await gw.writeConfig(yaml.replace('sk-upstream-priv', 'sk-upstream-priv-rotated'));
    assert.equal(await gw.gateway.reload(), true);
    assert.deepEqual(await listIds(client), ['priv-*'], 'another key may see another list: not carried over');
  } finally {
    await withDeadline(gw.stop(), 5_000, 'the gateway stopped');
    await upstream.close();
  }
});
