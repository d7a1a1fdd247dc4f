// Run-time keys with limits of their own (issue 24): set through the admin API (POST /admin/keys {limits}) and the
// CLI (keys create --rpm/--tpm/--concurrency), stored with the key, listed, and enforced by the rate-limit plugin
// even in a config that declares no limit anywhere; bad limits are a 400 naming the field (or the CLI's error) and
// create nothing. A run-time key without limits of its own gets no limit headers there.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postChat } from '../helpers/chat-requests.js';
import { runCli } from '../helpers/cli-process.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';

let upstream: FakeOpenAI;
let gw: GatewayUnderTest;

before(async () => {
  upstream = await new FakeOpenAI('up').start();
  // No `limits` anywhere in the file.
  gw = await startGatewayUnderTest(configWith(channel('a', upstream.url)));
});

after(async () => {
  await gw.stop();
  await upstream.close();
});

function admin(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** `count` quick chat requests: their statuses and the last answer's headers. */
async function burst(key: string, count: number): Promise<{ statuses: number[]; last: Response }> {
  const statuses: number[] = [];
  let last: Response | undefined;
  for (let i = 0; i < count; i++) {
    last = await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: `hi ${i}` }] }, { key });
    statuses.push(last.status);
    await last.arrayBuffer();
  }
  return { statuses, last: last as Response };
}

describe('run-time keys with limits of their own', () => {
  test('the admin API: created with limits, listed with them, held to them (429 in the caller\'s shape)', async () => {
    const res = await admin('POST', '/admin/keys', { name: 'paced', group: 'pro', limits: { rpm: 3, concurrency: 2 } });
    assert.equal(res.status, 201);
    const created = (await res.json()) as { key: string; limits: unknown };
    assert.deepEqual(created.limits, { rpm: 3, concurrency: 2 });
    const listed = (await (await admin('GET', '/admin/keys')).json()) as { data: { name: string; limits?: unknown }[] };
    assert.deepEqual(listed.data.find((k) => k.name === 'paced')?.limits, { rpm: 3, concurrency: 2 });

    const before = upstream.requests.length;
    const { statuses } = await burst(created.key, 5);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    assert.equal(upstream.requests.length - before, 3, 'the refused ones never reached the upstream');
    const refused = await postChat(gw.url, { model: 'gpt-4o', messages: [{ role: 'user', content: 'again' }] }, { key: created.key });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('x-ratelimit-limit-requests'), '3');
    assert.equal(refused.headers.get('x-ratelimit-remaining-requests'), '0');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'rate_limit_exceeded');
    assert.match(body.error.message, /key "paced" on requests per min \(RPM\): Limit 3/);
  });

  test('a run-time key without limits of its own is not limited, and gets no limit headers', async () => {
    const res = await admin('POST', '/admin/keys', { name: 'free-running', group: 'pro' });
    const created = (await res.json()) as { key: string; limits?: unknown };
    assert.equal(created.limits, undefined);
    const { statuses, last } = await burst(created.key, 8);
    assert.deepEqual(new Set(statuses), new Set([200]));
    assert.equal(last.headers.get('x-ratelimit-limit-requests'), null);
  });

  test('bad limits: 400 naming the field, and no key made', async () => {
    const cases: [unknown, string][] = [
      [{ rpm: 0 }, 'limits.rpm'],
      [{ tpm: 1.5 }, 'limits.tpm'],
      [{ tpm: 3_000_000_000 }, 'limits.tpm'], // above the file's maximum (and a PostgreSQL integer's)
      [{ concurrency: '4' }, 'limits.concurrency'],
      [{ rps: 4 }, 'limits.rps'],
      [[10], 'limits'],
      ['60', 'limits'],
    ];
    for (const [limits, param] of cases) {
      const res = await admin('POST', '/admin/keys', { name: 'never-made', group: 'pro', limits });
      assert.equal(res.status, 400, JSON.stringify(limits));
      assert.equal(((await res.json()) as { error: { param: string } }).error.param, param);
    }
    const listed = (await (await admin('GET', '/admin/keys')).json()) as { data: { name: string }[] };
    assert.equal(listed.data.some((k) => k.name === 'never-made'), false);
  });

  test('the CLI: keys create --rpm --concurrency, held to them by the running gateway; a bad value is refused', async () => {
    const result = await runCli(['keys', 'create', '--name', 'cli-paced', '--group', 'pro', '--rpm', '2', '--concurrency', '1', '--config', gw.configPath]);
    assert.equal(result.code, 0, result.stderr);
    const created = JSON.parse(result.stdout) as { key: string; limits: unknown };
    assert.deepEqual(created.limits, { rpm: 2, concurrency: 1 });
    assert.deepEqual((await burst(created.key, 3)).statuses, [200, 200, 429]);

    for (const value of ['lots', '1e3', '0x10', '0']) {
      const bad = await runCli(['keys', 'create', '--name', 'cli-bad', '--group', 'pro', '--tpm', value, '--config', gw.configPath]);
      assert.notEqual(bad.code, 0, value);
      assert.match(bad.stderr, /limits\.tpm must be a whole number from 1 to 1000000000/, value);
    }
    const listed = (await (await admin('GET', '/admin/keys')).json()) as { data: { name: string }[] };
    assert.equal(listed.data.some((k) => k.name === 'cli-bad'), false);
  });
});
