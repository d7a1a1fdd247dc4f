// Issue 40, finding 6: admin-token guesses on /admin/* are limited per client address by the console sign-in's
// limiter: ten wrong ones, then 429 in the admin API's shape with retry-after, even for the right token, until the
// bucket refills (the limiter's clock is the test's, moved instead of waited for). Wrong admin tokens and wrong
// console passwords take from one bucket. On Redis the count is the fleet's: two instances share it.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { MemoryLimiter } from '../../core/limits/memory-limiter.js';
import { configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
const REDIS_URL = process.env['GATEWAY_TEST_REDIS_URL'];

const MOCK = `  - name: demo
    type: mock
    models: ["demo-*"]
`;

/** The test config, with clients' addresses taken from X-Forwarded-For (the test is the trusted proxy). */
function config(extraServer = ''): string {
  return configWith(MOCK).replace('shutdown_grace_ms: 5000', `shutdown_grace_ms: 5000\n  trusted_proxies: ["127.0.0.1"]${extraServer}`);
}

interface Answer {
  readonly status: number;
  readonly code: unknown;
  readonly retryAfter: string | null;
}

async function listKeys(url: string, token: string, from: string): Promise<Answer> {
  const res = await fetch(`${url}/admin/keys`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from } });
  const body = (await res.json()) as { error?: { code?: unknown } };
  return { status: res.status, code: body.error?.code, retryAfter: res.headers.get('retry-after') };
}

async function signIn(url: string, body: Record<string, unknown>, from: string): Promise<number> {
  const res = await fetch(`${url}/console/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

const wrong = (i: number): string => `not-the-admin-token-${String(i).padStart(4, '0')}`;

describe('admin-token guesses, one instance', () => {
  let clock = 1_900_000_000_000;
  const limiter = new MemoryLimiter({ now: () => clock });
  let gw: GatewayUnderTest;

  before(async () => {
    gw = await startGatewayUnderTest(config(), { limiter });
  });
  after(async () => {
    await gw.stop();
  });

  it('ten wrong tokens get 401; then 429 with retry-after, the right token too, from that address only, until the bucket refills', async () => {
    const from = '203.0.113.10';
    for (let i = 0; i < 10; i++) assert.deepEqual(await listKeys(gw.url, wrong(i), from), { status: 401, code: 'invalid_admin_token', retryAfter: null });
    const refused = await listKeys(gw.url, wrong(10), from);
    assert.deepEqual([refused.status, refused.code], [429, 'rate_limit_exceeded']);
    assert.ok(Number(refused.retryAfter) >= 1 && Number(refused.retryAfter) <= 60, `retry-after: ${refused.retryAfter}`);
    const right = await listKeys(gw.url, ADMIN_TOKEN, from);
    assert.deepEqual([right.status, right.code], [429, 'rate_limit_exceeded'], 'the right token is refused too while the bucket is empty');
    assert.equal((await listKeys(gw.url, ADMIN_TOKEN, '203.0.113.11')).status, 200, 'another address is not');
    // One failure comes back every 6 s: one more guess, then refused again.
    clock += 6_000;
    assert.equal((await listKeys(gw.url, wrong(11), from)).status, 401);
    assert.equal((await listKeys(gw.url, ADMIN_TOKEN, from)).status, 429);
    clock += 60_000;
    assert.equal((await listKeys(gw.url, ADMIN_TOKEN, from)).status, 200, 'a minute later');
    // A right token gives its attempt back: a script calling the admin API all day is never limited.
    for (let i = 0; i < 30; i++) assert.equal((await listKeys(gw.url, ADMIN_TOKEN, from)).status, 200);
  });

  it('wrong admin tokens and wrong console sign-ins count in one bucket per address', async () => {
    const from = '203.0.113.20';
    for (let i = 0; i < 5; i++) assert.equal((await listKeys(gw.url, wrong(i), from)).status, 401);
    for (let i = 0; i < 5; i++) assert.equal(await signIn(gw.url, { admin_token: wrong(100 + i) }, from), 401);
    assert.equal((await listKeys(gw.url, ADMIN_TOKEN, from)).status, 429, 'the admin API after five of each');
    assert.equal(await signIn(gw.url, { admin_token: ADMIN_TOKEN }, from), 429, 'the console after five of each');
  });
});

describe('admin-token guesses, two instances sharing Redis', { skip: REDIS_URL === undefined ? 'GATEWAY_TEST_REDIS_URL is not set' : undefined }, () => {
  const prefix = `gwtest:${process.pid}:${randomUUID()}:`;
  const gateways: GatewayUnderTest[] = [];

  before(async () => {
    // A loaded machine (test files run side by side) may answer later than the 100 ms default: 503s, not 429s.
    const redis = `\nredis: { url: "${REDIS_URL as string}", prefix: "${prefix}", on_failure: closed, timeout_ms: 1000 }\n`;
    for (let i = 0; i < 2; i++) gateways.push(await startGatewayUnderTest(`${config()}${redis}`));
  });
  after(async () => {
    for (const gw of gateways) await gw.stop();
    const client = createClient({ url: REDIS_URL as string });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) if (keys.length > 0) await client.del(keys);
    await client.quit();
  });

  it('five wrong tokens on each instance empty the address\'s bucket on both', async () => {
    const [a, b] = gateways as [GatewayUnderTest, GatewayUnderTest];
    const from = '198.51.100.30';
    for (let i = 0; i < 5; i++) {
      assert.equal((await listKeys(a.url, wrong(i), from)).status, 401);
      assert.equal((await listKeys(b.url, wrong(50 + i), from)).status, 401);
    }
    for (const gw of [a, b]) {
      const refused = await listKeys(gw.url, ADMIN_TOKEN, from);
      assert.deepEqual([refused.status, refused.code], [429, 'rate_limit_exceeded']);
      assert.ok(Number(refused.retryAfter) >= 1);
    }
    assert.equal((await listKeys(b.url, ADMIN_TOKEN, '198.51.100.31')).status, 200);
  });
});
