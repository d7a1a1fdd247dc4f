// Failures are logged: one warn line per failed upstream attempt, one line per failed request (warn; error for
// 5xx), the stack of an internal error, and with log.access one line per request; and no line anywhere holds a
// client, upstream or admin secret.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { PluginFactory } from '../../core/pipeline/plugin.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { freePort } from '../helpers/cli-process.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until } from '../helpers/poll.js';
import { openRaw, parseAnswer } from '../helpers/raw-http.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
const UPSTREAM_KEYS = ['sk-upstream-flaky-SECRET-0001', 'sk-upstream-gone-SECRET-0002'];
const WRONG_KEY = 'sk-wrong-key-SECRET-000000000';

type Line = Record<string, unknown> & { level: number; msg: string };
const lines: Line[] = [];
let text = '';
let fake: FakeOpenAI;
let gw: GatewayUnderTest;

/** A plugin that fails the way a bug does: a plain Error, not a GatewayError. */
const boom: PluginFactory = {
  name: 'boom',
  uses: [],
  create: () => ({
    name: 'boom',
    request(ctx) {
      if (ctx.request.model === 'gpt-boom') throw new TypeError('kaboom in a plugin');
    },
  }),
};

before(async () => {
  fake = await new FakeOpenAI('flaky').start();
  fake.reply = (req) => {
    const model = req.body['model'];
    if (model === 'gpt-500') return { kind: 'status', status: 500 };
    if (model === 'gpt-hang') return { kind: 'hang' };
    if (model === 'gpt-break') return { kind: 'stream', pieces: ['a', 'b', 'c', 'd'], breakAfter: 2 };
    return req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' };
  };
  const gone = await freePort();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  gw = await startGatewayUnderTest(
    configWith(
      `  - name: flaky
    type: openai
    base_url: ${fake.url}
    keys: ["${UPSTREAM_KEYS[0]}"]
    models: ["gpt-*"]
    timeout_ms: 1000
    cooldown_ms: 0
  - name: gone
    type: openai
    base_url: http://127.0.0.1:${gone}
    keys: ["${UPSTREAM_KEYS[1]}"]
    models: ["gone-*"]
    cooldown_ms: 0
`,
      `log:
  access: true
routes:
  - path: /v1/chat/completions
    plugins: [{ use: auth }, { use: boom }, { use: meter }, { use: relay }]
`,
    ),
    { logger: pino({ level: 'info' }, sink), extraPlugins: [boom] },
  );
});

after(async () => {
  await gw.stop();
  await fake.close();
});

async function chat(model: string, options: { stream?: boolean; key?: string } = {}): Promise<{ status: number; id: string; body: string }> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.key ?? TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: options.stream === true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  return { status: res.status, id: res.headers.get('x-request-id') ?? '', body: await res.text() };
}

/** The lines of one request, once its request line (the last one it writes) is out. */
async function linesOf(id: string): Promise<Line[]> {
  return until(`the log lines of ${id}`, () => (lines.some((l) => l['requestId'] === id && /^request/.test(l.msg)) ? lines.filter((l) => l['requestId'] === id) : undefined), {
    timeoutMs: 5_000,
    intervalMs: 20,
  });
}

const WARN = 40;
const ERROR = 50;
const INFO = 30;

function requestLine(of: Line[]): Line {
  const line = of.find((l) => /^request/.test(l.msg));
  assert.ok(line !== undefined);
  return line;
}

test('an upstream that refuses the connection: a warn line for the attempt, an error line for the 502', async () => {
  const { status, id } = await chat('gone-model');
  assert.equal(status, 502);
  const of = await linesOf(id);
  const attempt = of.find((l) => l.msg.startsWith('upstream attempt failed'));
  assert.ok(attempt !== undefined, JSON.stringify(of));
  assert.equal(attempt.level, WARN);
  assert.deepEqual([attempt['channel'], attempt['reason'], attempt['route'], attempt['model']], ['gone', 'connect', '/v1/chat/completions', 'gone-model']);
  assert.equal(typeof attempt['latencyMs'], 'number');
  const request = requestLine(of);
  assert.equal(request.level, ERROR);
  assert.deepEqual([request['status'], request['code'], request['channel'], request['key']], [502, 'GW_ERR_UPSTREAM_UNAVAILABLE', 'gone', 'tester']);
});

test('an upstream 500 and an upstream timeout: attempt and request lines with the upstream status or reason', async () => {
  const failed = await chat('gpt-500');
  assert.equal(failed.status, 502);
  const of500 = await linesOf(failed.id);
  assert.equal(of500.find((l) => l.msg.startsWith('upstream attempt failed'))?.['upstreamStatus'], 500);
  assert.deepEqual([requestLine(of500)['code'], requestLine(of500)['upstreamStatus'], requestLine(of500).level], ['GW_ERR_UPSTREAM_ERROR', 500, ERROR]);

  const slow = await chat('gpt-hang');
  assert.equal(slow.status, 504);
  const ofSlow = await linesOf(slow.id);
  assert.equal(ofSlow.find((l) => l.msg.startsWith('upstream attempt failed'))?.['reason'], 'timeout');
  assert.deepEqual([requestLine(ofSlow)['code'], requestLine(ofSlow).level], ['GW_ERR_UPSTREAM_TIMEOUT', ERROR]);
});

test('a stream that breaks after it began: an error line with the break, status 200 as the client saw it', async () => {
  const broken = await chat('gpt-break', { stream: true });
  assert.equal(broken.status, 200);
  assert.match(broken.body, /"error"/);
  const line = requestLine(await linesOf(broken.id));
  assert.deepEqual([line['status'], line['code'], line['channel'], line.level], [200, 'GW_ERR_UPSTREAM_STREAM_BROKEN', 'flaky', ERROR]);
});

test('an internal error is logged with its stack and the request id; the caller sees only "internal error"', async () => {
  const failed = await chat('gpt-boom');
  assert.equal(failed.status, 500);
  assert.doesNotMatch(failed.body, /kaboom/);
  const line = requestLine(await linesOf(failed.id));
  assert.equal(line.level, ERROR);
  assert.equal(line['code'], 'GW_ERR_INTERNAL');
  const err = line['err'] as { message: string; stack: string; type: string };
  assert.equal(err.message, 'kaboom in a plugin');
  assert.match(err.stack, /TypeError: kaboom in a plugin\n\s+at /);
});

test('a refused key is a warn line naming no key; a good request is one access line', async () => {
  const refused = await chat('gpt-4o', { key: WRONG_KEY });
  assert.equal(refused.status, 401);
  const refusedLine = requestLine(await linesOf(refused.id));
  assert.deepEqual([refusedLine.level, refusedLine['code'], refusedLine['key']], [WARN, 'GW_ERR_AUTH_INVALID_KEY', null]);

  const ok = await chat('gpt-4o');
  assert.equal(ok.status, 200);
  const okLines = await linesOf(ok.id);
  assert.equal(okLines.length, 1);
  assert.deepEqual([okLines[0]?.level, okLines[0]?.msg, okLines[0]?.['status'], okLines[0]?.['model']], [INFO, 'request', 200, 'gpt-4o']);
});

test('answers outside the chains are logged and counted: unknown paths, malformed HTTP, the admin token', async () => {
  // A path is the client's text: logged without its query, bounded and scrubbed.
  const unknown = await fetch(`${gw.url}/v1/sk-proj-SECRETabcdefghijklmnop/x?api_key=SECRET-in-query`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  assert.equal(unknown.status, 404);
  const unknownLine = (await refusalLines(unknown.headers.get('x-request-id')))[0];
  assert.deepEqual(
    [unknownLine?.level, unknownLine?.['status'], unknownLine?.['code'], unknownLine?.['method'], unknownLine?.['path']],
    [WARN, 404, 'GW_ERR_ROUTE_NOT_FOUND', 'GET', '/v1/[redacted]/x'],
  );

  const raw = await openRaw(gw.url, 'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n');
  const answer = await raw.closed;
  assert.equal(parseAnswer(answer).status, 400);
  const malformedLine = (await refusalLines(/x-request-id: (\S+)/i.exec(answer)?.[1] ?? null))[0];
  assert.deepEqual([malformedLine?.level, malformedLine?.['code'], malformedLine?.['path']], [WARN, 'GW_ERR_REQUEST_MALFORMED', '/v1/chat/completions']);

  const admin = await fetch(`${gw.url}/admin/keys`, { headers: { authorization: 'Bearer SECRET-wrong-admin-token' } });
  assert.equal(admin.status, 401);
  assert.equal((await refusalLines(admin.headers.get('x-request-id')))[0]?.['code'], 'GW_ERR_ADMIN_UNAUTHORIZED');

  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  for (const code of ['GW_ERR_ROUTE_NOT_FOUND', 'GW_ERR_REQUEST_MALFORMED', 'GW_ERR_ADMIN_UNAUTHORIZED']) {
    assert.match(metrics, new RegExp(`^gateway_refused_total\\{code="${code}"\\} [1-9]`, 'm'), code);
  }
});

/** The lines logged for the refusal whose answer carried `id`. */
async function refusalLines(id: string | null): Promise<Line[]> {
  assert.ok(id !== null && id !== '', 'the answer carries x-request-id');
  return until(`the log line of ${id}`, () => {
    const of = lines.filter((l) => l['requestId'] === id);
    return of.length > 0 ? of : undefined;
  }, { timeoutMs: 5_000, intervalMs: 20 });
}

test('no log line holds a secret: client keys, upstream keys, the admin token', async () => {
  const admin = await fetch(`${gw.url}/admin/keys`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(admin.status, 200);
  await fetch(`${gw.url}/admin/keys`, { headers: { authorization: 'Bearer not-the-admin-token-000' } });
  assert.ok(lines.length >= 10, `the log has lines to scan (${lines.length})`);
  for (const secret of [TEST_KEY, WRONG_KEY, ADMIN_TOKEN, ...UPSTREAM_KEYS, 'SECRET']) {
    assert.ok(!text.includes(secret), `the log holds ${secret}: ${text.split("\n").filter((l) => l.includes(secret)).join("\n")}`);
  }
});
