// The operator's "back in rotation" over HTTP (issue 45): two instances sharing Redis (a SQLite store each) have a
// channel out of rotation; POST /console/api/channel-control/{name}/rotation/reset on one puts it back on both (the
// rotation's own news), logged once with who did it; an account's user is refused (403), an unknown channel is a 404,
// a channel in rotation changes nothing. Without Redis the instance that answered has it back (each keeps its own).

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createClient } from 'redis';
import { consoleAccountUser, consoleSignIn, type ConsoleSession } from '../../test/helpers/console-session.js';
import { configWith, startGatewayUnderTest, type GatewayUnderTest } from '../../test/helpers/gateway-under-test.js';
import { until } from '../../test/helpers/poll.js';

const ADMIN = 'test-admin-token-0123456789';
const REDIS_URL = process.env['GATEWAY_TEST_REDIS_URL'];
const WAIT = { timeoutMs: 10_000, intervalMs: 20 };
/** Out after one failure: the test takes a channel out with one outcome. */
const STRICT = { errors: 1, window: 1, probeAfterMs: 600_000, probeMaxMs: 600_000 };
const CHANNELS = '  - { name: alpha, type: mock, models: ["demo-*"] }\n  - { name: beta, type: mock, models: ["demo-*"] }\n';

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
  readonly text: string;
}

async function call(gw: GatewayUnderTest, who: ConsoleSession, method: string, path: string): Promise<Answer> {
  const headers = { 'content-type': 'application/json', cookie: who.cookie, 'x-csrf-token': who.csrf };
  const res = await fetch(`${gw.url}/console/api${path}`, { method, headers, ...(method === 'GET' ? {} : { body: '{}' }) });
  const text = await res.text();
  return { status: res.status, text, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const rotationOf = (gw: GatewayUnderTest) => gw.gateway.runtime.current.services.router.rotation;

function logSink(lines: Record<string, unknown>[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
}

describe('back in rotation, two instances sharing Redis', { skip: REDIS_URL === undefined ? 'GATEWAY_TEST_REDIS_URL is not set (no Redis server to test against; .ci/run sets it)' : undefined }, () => {
  const prefix = `gwtest:${process.pid}:${randomUUID()}:`;
  const gws: GatewayUnderTest[] = [];
  const logs: Record<string, unknown>[][] = [[], []];
  let op: ConsoleSession;
  let ada: ConsoleSession;

  before(async () => {
    const yaml = configWith(CHANNELS, `accounts: [{ name: acme }]\nredis: { url: "${REDIS_URL as string}", prefix: "${prefix}", timeout_ms: 1000 }\n`);
    for (let i = 0; i < 2; i++) gws.push(await startGatewayUnderTest(yaml, { logger: pino({ level: 'info' }, logSink(logs[i] as Record<string, unknown>[])) }));
    op = await consoleSignIn((gws[0] as GatewayUnderTest).url, { admin_token: ADMIN });
    ada = await consoleAccountUser((gws[0] as GatewayUnderTest).url, op, 'acme', 'ada', 'a long enough password');
  });

  after(async () => {
    for (const gw of gws) await gw.stop();
    const client = createClient({ url: REDIS_URL ?? 'redis://127.0.0.1:6379' });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length > 0) await client.del(keys);
    await client.quit();
  });

  it('puts a channel out on both instances back on both, logged once with who did it; operator only', async () => {
    const [a, b] = gws as [GatewayUnderTest, GatewayUnderTest];
    await until('both connected to Redis', () => (gws.every((gw) => gw.gateway.runtime.deps.shared?.redis.client.isReady === true) ? true : undefined), WAIT);
    rotationOf(b).record('alpha', STRICT, 'failed', false);
    await until('alpha out on both', () => (gws.every((gw) => rotationOf(gw).check('alpha') === 'out') ? true : undefined), WAIT);

    const refused = await call(a, ada, 'POST', '/channel-control/alpha/rotation/reset');
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await call(a, op, 'POST', '/channel-control/nope/rotation/reset')).status, 404);
    assert.equal(rotationOf(a).check('alpha'), 'out', 'a refusal changes nothing');

    const reset = await call(a, op, 'POST', '/channel-control/alpha/rotation/reset');
    assert.equal(reset.status, 200, reset.text);
    assert.deepEqual(reset.json, { object: 'channel_rotation_reset', name: 'alpha', was_out: true, fleet: true });
    assert.equal(rotationOf(a).check('alpha'), 'in', 'in here at once');
    await until('alpha back on b', () => (rotationOf(b).check('alpha') === 'in' ? true : undefined), WAIT);
    const told = logs.flat().filter((l) => typeof l['msg'] === 'string' && (l['msg'] as string).includes('put back by'));
    assert.equal(told.length, 1, 'logged once per fleet');
    assert.equal(told[0]?.['channel'], 'alpha');
    assert.ok(typeof told[0]?.['by'] === 'string' && told[0]['by'] !== '', 'with who did it');

    // A store each: a session of b's own.
    const opOnB = await consoleSignIn(b.url, { admin_token: ADMIN });
    const again = await call(b, opOnB, 'POST', '/channel-control/alpha/rotation/reset');
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.json, { object: 'channel_rotation_reset', name: 'alpha', was_out: false, fleet: true });
  });
});

describe('back in rotation without Redis', () => {
  let gw: GatewayUnderTest;
  let op: ConsoleSession;

  before(async () => {
    gw = await startGatewayUnderTest(configWith(CHANNELS));
    op = await consoleSignIn(gw.url, { admin_token: ADMIN });
  });
  after(async () => {
    await gw?.stop();
  });

  it('puts the channel back on the instance that answered', async () => {
    rotationOf(gw).record('beta', STRICT, 'failed', false);
    assert.equal(rotationOf(gw).check('beta'), 'out');
    const list = await call(gw, op, 'GET', '/channel-control');
    const row = (list.json['data'] as { name: string; health_state: { state: string } }[]).find((r) => r.name === 'beta');
    assert.equal(row?.health_state.state, 'out');
    const reset = await call(gw, op, 'POST', '/channel-control/beta/rotation/reset');
    assert.equal(reset.status, 200, reset.text);
    assert.deepEqual(reset.json, { object: 'channel_rotation_reset', name: 'beta', was_out: true, fleet: false });
    assert.equal(rotationOf(gw).check('beta'), 'in');
  });
});
