// Issue 40, finding 2: every route refuses a caller without its credential (a key; the admin token; a console
// session, with its CSRF token for a change) before it reads the body, and the routes open to anyone (sign-in, a
// password link, the console's pages) cap their bodies at a few KB. The routes come from the registry, so one added later is
// covered. Each attacker announces (or streams, chunked) 32 MB, sends 48 KB of it and stalls: the answer must come
// while it stalls, so the gateway answered having read less than 64 KB. Meanwhile a key's /v1/messages is served.

import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { after, before, test } from 'node:test';
import { CONTROL_BODY_LIMIT, type Endpoint } from '../../core/endpoints/registry.js';
import { BUILTIN_ENDPOINTS } from '../../features/index.js';
import { consoleSignIn, type ConsoleSession } from '../helpers/console-session.js';
import { configWith, startGatewayUnderTest, TEST_KEY, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { withDeadline } from '../helpers/poll.js';
import { openRaw, parseAnswer, type RawExchange } from '../helpers/raw-http.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
const ANNOUNCED = 32 * 1024 * 1024;
/** What each attacker sends before it stalls: under the 64 KB the gateway may read, over the open routes' cap. */
const SENT = 48 * 1024;
const ATTACKERS_PER_ROUTE = 8;
/** Far beyond the test's deadlines: a read that waits for the rest of the body shows as a missing answer, not a 408. */
const BODY_TIMEOUT_MS = 120_000;

const MOCK = `  - name: demo
    type: mock
    models: ["demo-*"]
`;

let gw: GatewayUnderTest;

before(async () => {
  gw = await startGatewayUnderTest(
    configWith(MOCK).replace(
      'body_limit: 65536',
      // Each attacker comes from an address of its own (X-Forwarded-For from the test, a trusted proxy): wrong admin
      // tokens are limited per address (admin-token-guesses.test.ts), and here each route's first answer is the point.
      `body_limit: ${ANNOUNCED}\n  max_inflight_body_bytes: ${ANNOUNCED}\n  body_timeout_ms: ${BODY_TIMEOUT_MS}\n  trusted_proxies: ["127.0.0.1"]`,
    ),
  );
});

after(async () => {
  await gw.stop();
});

/** A concrete path for a registry entry's pattern. */
const concrete = (e: Endpoint): string => e.path.replace(/\{[^}]+\}/g, 'x');

/** The request head of an attacker: a JSON body of 32 MB, announced or chunked. */
function attackHead(method: string, path: string, chunked: boolean, extra: Record<string, string> = {}): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json'];
  lines.push(chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${ANNOUNCED}`);
  for (const [name, value] of Object.entries(extra)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** SENT bytes of the body (one chunk when chunked), then nothing more. */
function firstBytes(chunked: boolean): Buffer {
  const data = Buffer.alloc(SENT, 0x61);
  return chunked ? Buffer.concat([Buffer.from(`${SENT.toString(16)}\r\n`), data, Buffer.from('\r\n')]) : data;
}

interface Attack {
  readonly label: string;
  readonly exchange: RawExchange;
  /** The body bytes written when the answer's first byte arrived (-1: none yet). */
  writtenAtAnswer: number;
}

async function attack(label: string, method: string, path: string, chunked: boolean, extra: Record<string, string> = {}): Promise<Attack> {
  const head = attackHead(method, path, chunked, extra);
  const exchange = await openRaw(gw.url, head);
  const started: Attack = { label, exchange, writtenAtAnswer: -1 };
  exchange.socket.once('data', () => (started.writtenAtAnswer = exchange.socket.bytesWritten - Buffer.byteLength(head)));
  exchange.socket.write(firstBytes(chunked));
  return started;
}

const codeOf = (body: Record<string, unknown>): unknown => (body['error'] as Record<string, unknown> | undefined)?.['code'];

test('8 stalled 32 MB bodies to every route of the registry without credentials: 401 (413 on the open ones) before 64 KB; /v1/messages is served meanwhile', async () => {
  const routes = BUILTIN_ENDPOINTS.all;
  assert.ok(routes.filter((e) => e.path.startsWith('/console') || e.path.startsWith('/admin/')).length >= 39, 'the console and admin routes are there');
  const attacks: { readonly route: Endpoint; readonly attack: Attack }[] = [];
  for (const route of routes) {
    for (let i = 0; i < ATTACKERS_PER_ROUTE; i++) {
      const label = `${route.method} ${route.path} #${i}`;
      const from = `10.${Math.floor(attacks.length / 250)}.${attacks.length % 250}.1`;
      attacks.push({ route, attack: await attack(label, route.method, concrete(route), i % 2 === 1, { 'X-Forwarded-For': from }) });
    }
  }

  // While they all stall: a key's request with a 5 KB prompt, through Anthropic's own client.
  const client = new Anthropic({ apiKey: TEST_KEY, authToken: null, baseURL: gw.url, maxRetries: 0 });
  const served = await withDeadline(
    client.messages.create({ model: 'demo-chat', max_tokens: 16, messages: [{ role: 'user', content: 'x'.repeat(5_000) }] }),
    15_000,
    '/v1/messages is answered',
  );
  assert.equal(served.type, 'message');

  const answers = await withDeadline(
    Promise.all(attacks.map(({ attack: a }) => a.exchange.waitFor('\r\n\r\n'))),
    20_000,
    'every stalled request is answered',
  );
  const counts = new Map<string, number>();
  for (const [i, { route, attack: a }] of attacks.entries()) {
    const answer = parseAnswer(answers[i] as string);
    const open = route.body === 'open';
    const expected = open ? 413 : 401;
    // The API routes answer in their callers' shapes (OpenAI's, Anthropic's, Volcengine's): their status is the point.
    const code = open ? 'request_too_large' : route.path.startsWith('/admin/') ? 'invalid_admin_token' : route.path.startsWith('/console') ? 'not_signed_in' : undefined;
    const got = code === undefined ? [answer.status] : [answer.status, codeOf(answer.body)];
    assert.deepEqual(got, code === undefined ? [expected] : [expected, code], `${a.label}: ${(answers[i] as string).slice(0, 300)}`);
    assert.ok(a.writtenAtAnswer >= 0 && a.writtenAtAnswer <= SENT + 16, `${a.label}: answered after ${a.writtenAtAnswer} bytes`);
    counts.set(String(expected), (counts.get(String(expected)) ?? 0) + 1);
    a.exchange.socket.destroy();
  }
  console.log(`refused before the body: ${[...counts].map(([status, n]) => `${n} x ${status}`).join(', ')} over ${routes.length} routes`);
});

test('a session without its CSRF token is refused before a change\'s body; with it, a console body over 64 KiB is a 413', async () => {
  const operator: ConsoleSession = await consoleSignIn(gw.url, { admin_token: ADMIN_TOKEN });
  for (const chunked of [false, true]) {
    const noCsrf = await attack(`no CSRF (chunked: ${chunked})`, 'POST', '/console/api/keys', chunked, { Cookie: operator.cookie });
    const withCsrf = await attack(`CSRF (chunked: ${chunked})`, 'POST', '/console/api/keys', chunked, { Cookie: operator.cookie, 'X-CSRF-Token': operator.csrf });
    // Past the cap: chunked, it is learnt from the bytes (the first 48 KB, then what follows).
    if (chunked) withCsrf.exchange.socket.write(firstBytes(true));
    const refused = parseAnswer(await withDeadline(noCsrf.exchange.waitFor('\r\n\r\n'), 10_000, 'the 403'));
    assert.deepEqual([refused.status, codeOf(refused.body)], [403, 'csrf_token_invalid']);
    assert.ok(noCsrf.writtenAtAnswer <= SENT + 16);
    const tooLarge = parseAnswer(await withDeadline(withCsrf.exchange.waitFor('\r\n\r\n'), 10_000, 'the 413'));
    assert.deepEqual([tooLarge.status, codeOf(tooLarge.body)], [413, 'request_too_large']);
    assert.ok(withCsrf.writtenAtAnswer <= 2 * SENT + 32 && 2 * SENT > CONTROL_BODY_LIMIT);
    noCsrf.exchange.socket.destroy();
    withCsrf.exchange.socket.destroy();
  }
  // A console change within the cap is served as before.
  const made = await fetch(`${gw.url}/console/api/keys`, {
    method: 'POST',
    headers: { cookie: operator.cookie, 'x-csrf-token': operator.csrf, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'intake-key', group: 'pro' }),
  });
  assert.equal(made.status, 201, await made.text());
});
