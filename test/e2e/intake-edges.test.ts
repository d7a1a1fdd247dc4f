// The intake's edges: a body asked for after its client left, or while the gateway shuts down, ends at once
// (it neither waits for the body timeout nor holds the shutdown); bodies held by requests still running count
// against server.max_inflight_body_bytes; pipelined requests are served in turn, and those behind a connection's
// last answer are never run, so never sent upstream nor billed without an answer; bytes Node cannot parse after a
// whole request make its answer the connection's last.

import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, test } from 'node:test';
import type { RequestContext } from '../../core/pipeline/context.js';
import type { PluginFactory } from '../../core/pipeline/plugin.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { until, withDeadline } from '../helpers/poll.js';
import { openRaw, parseAnswer, writeBody } from '../helpers/raw-http.js';

/** A request held in its head phase by the gate, and what lets it go on. */
interface Held {
  readonly ctx: RequestContext;
  open(): void;
}

/**
 * Holds each request sent with `x-slow-head: 1` in its head phase until the test opens it: each test picks its own
 * moment (its client gone, more bytes pipelined behind it, the client's buffers full) before the body is asked for.
 */
class HeadGate {
  readonly #held: Held[] = [];
  /** Every request ever held: a test that fails before it opens its own leaves none held for the stop to wait on. */
  readonly #all: Held[] = [];
  readonly plugin: PluginFactory = {
    name: 'slow-head',
    uses: [],
    create: () => ({
      name: 'slow-head',
      head: (ctx) =>
        ctx.headers['x-slow-head'] === '1'
          ? new Promise<void>((open) => {
              const held = { ctx, open };
              this.#held.push(held);
              this.#all.push(held);
            })
          : undefined,
    }),
  };

  /** The next request the gate holds, once it is there. */
  next(): Promise<Held> {
    return until('a request held at the head gate', () => this.#held.shift(), { timeoutMs: 5_000, intervalMs: 5 });
  }

  openAll(): void {
    for (const held of this.#all) held.open();
  }
}

const HELD_BODY = 60_000;
const CAP = 100_000;

const gate = new HeadGate();
let fake: FakeOpenAI;
let gw: GatewayUnderTest;

before(async () => {
  fake = await new FakeOpenAI('held').start();
  // A paced stream: its request holds its body until the stream ends.
  fake.reply = (req) => (req.body['stream'] === true ? { kind: 'stream', pieces: ['a', 'b', 'c', 'd'], delayMs: 150 } : { kind: 'completion' });
  gw = await startGatewayUnderTest(
    configWith(
      `  - name: held
    type: openai
    base_url: ${fake.url}
    keys: ["sk-upstream-held-0123456789"]
    models: ["gpt-*"]
`,
      `routes:
  - path: /v1/chat/completions
    plugins: [{ use: slow-head }, { use: auth }, { use: meter }, { use: relay }]
`,
    ).replace('  body_limit: 65536\n', `  body_limit: 65536\n  max_inflight_body_bytes: ${CAP}\n`),
    { extraPlugins: [gate.plugin] },
  );
});

after(async () => {
  gate.openAll();
  await gw.stop();
  await fake.close();
});

/** Resolves once `socket` has flushed nothing to the kernel over five polls 20 ms apart: its peer has stopped reading. */
async function stalled(socket: Socket): Promise<void> {
  let last = -1;
  let still = 0;
  await until(
    'the client is held back by full buffers',
    () => {
      const flushed = socket.bytesWritten - socket.writableLength;
      still = flushed === last && flushed > 0 ? still + 1 : 0;
      last = flushed;
      return still >= 5 ? true : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 20 },
  );
}

function head(headers: Record<string, string | number>): string {
  const lines = ['POST /v1/chat/completions HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: application/json'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A chat body of exactly `size` bytes. */
function chatBody(size: number, stream: boolean): string {
  const empty = JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content: '' }] });
  return JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content: 'x'.repeat(size - empty.length) }] });
}

function post(body: string): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body,
  });
}

test('a body asked for after its client left ends the request at once, not after the body timeout', async () => {
  const runtime = gw.gateway.runtime;
  const exchange = await openRaw(gw.url, `${head({ Authorization: `Bearer ${TEST_KEY}`, 'Content-Length': 1000, 'x-slow-head': 1 })}{"model":`);
  const held = await gate.next();
  // Gone while the head phase still runs, and seen gone: its body is asked for only afterwards.
  exchange.socket.destroy();
  await until('the gateway sees the client gone', () => (held.ctx.abort.aborted ? true : undefined), { timeoutMs: 2_000, intervalMs: 5 });
  held.open();
  await until('the request has ended', () => (runtime.inFlightCount === 0 ? true : undefined), { timeoutMs: 2_000, intervalMs: 10 });
  assert.equal(fake.requests.length, 0);
});

test('bodies held by running requests count against the cap: 503 while one is held, 200 once it is released', async () => {
  const held = await post(chatBody(HELD_BODY, true));
  assert.equal(held.status, 200);
  // The first request holds its 60 KB body while its stream runs; 60 KB more would pass the 100 KB cap.
  const refused = await post(chatBody(HELD_BODY, false));
  assert.equal(refused.status, 503, await refused.text());
  assert.equal(refused.headers.get('retry-after'), '1');
  await held.text();
  await until('the held body is released', () => (gw.gateway.runtime.inFlightCount === 0 ? true : undefined), { timeoutMs: 2_000, intervalMs: 10 });
  const admitted = await post(chatBody(HELD_BODY, false));
  assert.equal(admitted.status, 200, await admitted.text());
});

test('a request pipelined behind a 401 (from the headers, or after an await) is never run, sent upstream or billed', async () => {
  // slow 0: the 401 comes at once, and the second request is parsed only from the rest of the refused body's bytes.
  // slow 1: the first is refused once its slow head phase is over; the second was parsed long before and waits.
  for (const slow of [0, 1]) {
    const before = fake.requests.length;
    const usageBefore = (await gw.usage()).length;
    const refusedBody = '{"model":"gpt-4o","messages":[]}';
    const good = chatBody(200, false);
    const exchange = await openRaw(
      gw.url,
      `${head({ 'Content-Length': refusedBody.length, 'x-slow-head': slow })}${refusedBody}${head({ Authorization: `Bearer ${TEST_KEY}`, 'Content-Length': good.length })}${good}`,
    );
    // Both requests came in one write, parsed at once: the second waits its turn while the first is held.
    if (slow === 1) (await gate.next()).open();
    // The connection closes after the 401 (the lingering close's moment, ~2 s, as the client does not close).
    const text = await withDeadline(exchange.closed, 5_000, 'the connection closes');
    assert.equal(parseAnswer(text).status, 401, `slow head ${slow}`);
    assert.equal(text.match(/HTTP\/1\.1 /g)?.length, 1, text);
    assert.equal(gw.gateway.runtime.inFlightCount, 0);
    assert.equal(fake.requests.length, before, `slow head ${slow}: the pipelined request reached the upstream`);
    assert.equal((await gw.usage()).length, usageBefore, `slow head ${slow}: the pipelined request was billed`);
  }
});

test('behind a refusal after an await, a waiting request\'s large body is drained by the lingering close', async () => {
  const refusedBody = '{"model":"gpt-4o","messages":[]}';
  const exchange = await openRaw(
    gw.url,
    `${head({ 'Content-Length': refusedBody.length, 'x-slow-head': 1 })}${refusedBody}${head({ Authorization: `Bearer ${TEST_KEY}`, 'Content-Length': 20_000_000 })}`,
  );
  // The waiting request's body fills its buffer while the first is refused; the client sends until the answer's
  // FIN, then ends its side (a net socket does), which a draining gateway reads at once.
  void writeBody(exchange.socket, 20_000_000);
  const held = await gate.next();
  // The gateway has stopped reading (the waiting body's buffer is full) once the client can flush nothing more.
  await stalled(exchange.socket);
  held.open();
  await withDeadline(exchange.waitFor('HTTP/1.1 401'), 5_000, 'the 401');
  const answeredAt = Date.now();
  const text = await withDeadline(exchange.closed, 5_000, 'the connection closes');
  assert.equal(parseAnswer(text).status, 401);
  // Not drained, the socket stays paused under the waiting body and is closed only by the linger's 2 s timer.
  const lingered = Date.now() - answeredAt;
  assert.ok(lingered < 1_000, `closed ${lingered} ms after the answer: the linger's timer, not the client's end`);
});

test('bytes Node cannot parse right after a whole request: that request is answered, as the connection\'s last', async () => {
  for (const slow of [0, 1]) {
    const before = fake.requests.length;
    const good = chatBody(200, false);
    const exchange = await openRaw(gw.url, `${head({ Authorization: `Bearer ${TEST_KEY}`, 'Content-Length': good.length, 'x-slow-head': slow })}${good}GARBAGE \x01\r\n\r\n`);
    // One write, parsed at once: the garbage is seen while the request is held.
    if (slow === 1) (await gate.next()).open();
    const text = await withDeadline(exchange.closed, 5_000, 'the connection closes');
    const answer = parseAnswer(text);
    assert.equal(answer.status, 200, `slow head ${slow}: ${text}`);
    assert.match(answer.headers, /^connection: close$/im, `slow head ${slow}: the answer says the connection closes`);
    assert.equal(text.match(/HTTP\/1\.1 /g)?.length, 1, text);
    assert.equal(fake.requests.length, before + 1);
  }
});

test('pipelined requests are answered in turn; a connection with more than 32 waiting is cut', async () => {
  const good = chatBody(200, false);
  const first = `${head({ Authorization: `Bearer ${TEST_KEY}`, 'Content-Length': good.length, 'x-slow-head': 1 })}${good}`;
  const health = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
  const served = await openRaw(gw.url, `${first}${health.repeat(20)}`);
  // The 20 health checks, parsed with the chat request, wait behind it while it is held.
  (await gate.next()).open();
  const all = await until(
    'the 21 answers',
    () => {
      const text = served.received();
      return (text.match(/HTTP\/1\.1 200 /g)?.length ?? 0) === 21 ? text : undefined;
    },
    { timeoutMs: 5_000, intervalMs: 10 },
  );
  // The chat answer, which took longest, still comes first.
  assert.match(all, /^HTTP\/1\.1 200 OK[\s\S]*?"object":"chat\.completion"/);
  served.socket.destroy();

  const flooded = await openRaw(gw.url, `${first}${health.repeat(40)}`);
  const held = await gate.next();
  const text = await withDeadline(flooded.closed, 5_000, 'the connection is cut');
  held.open();
  assert.equal(text, '', 'nothing is answered on a cut connection');
});

test('a body being read when the shutdown ends the stragglers is answered 503 in the route\'s shape', async () => {
  const alone = await startGatewayUnderTest(
    configWith(`  - name: held
    type: openai
    base_url: ${fake.url}
    keys: ["sk-upstream-held-0123456789"]
    models: ["gpt-*"]
`).replace('shutdown_grace_ms: 5000', 'shutdown_grace_ms: 200'),
  );
  try {
    const exchange = await openRaw(alone.url, `${head({ Authorization: `Bearer ${TEST_KEY}`, 'Content-Length': 1000 })}{"model":`);
    await until('the body is being read', () => (alone.gateway.runtime.inFlightCount === 1 ? true : undefined), { timeoutMs: 2_000, intervalMs: 5 });
    const startedAt = Date.now();
    await withDeadline(alone.stop(), 5_000, 'the shutdown');
    assert.ok(Date.now() - startedAt < 2_000, `the shutdown took ${Date.now() - startedAt} ms`);
    const answer = parseAnswer(await withDeadline(exchange.closed, 2_000, 'the answer'));
    assert.equal(answer.status, 503, JSON.stringify(answer));
    assert.equal((answer.body['error'] as Record<string, unknown>)['code'], 'server_shutting_down');
  } finally {
    await alone.stop();
  }
});
