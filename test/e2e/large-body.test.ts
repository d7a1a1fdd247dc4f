// Large request bodies are held in pooled memory that the next request reuses (core/formats/body-bytes.ts).
// Over real HTTP: every body reaches its upstream byte for byte while slabs are reused under concurrency, edits
// and failover included, and an upstream that answers before reading the body, or whose send is cut off when
// the client leaves, never receives another request's bytes.

import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { removeTopLevelFields, setTopLevelField } from '../../core/formats/json-edit.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { LIMITED_KEY, TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { LoopbackHttpServer } from '../helpers/loopback-http-server.js';
import { until, withDeadline } from '../helpers/poll.js';

const CHAT = '/v1/chat/completions';

/**
 * Answers at once, before reading the body, then reads what still comes and keeps it, until the body ends or the
 * connection closes. The gateway's client (undici) closes it when the answer is complete before the body is sent;
 * once its answer is out, node:http tells the request nothing of that (no 'close', no 'aborted'): only its socket
 * does.
 */
class EarlyAnswer extends LoopbackHttpServer {
  readonly received: Buffer[] = [];
  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-early',
        object: 'chat.completion',
        created: 1760000000,
        model: 'early-model',
        choices: [{ index: 0, message: { role: 'assistant', content: 'early', refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise<void>((resolve) => {
      req.on('end', resolve);
      req.on('close', resolve);
      req.socket.on('close', resolve);
    });
    this.received.push(Buffer.concat(chunks));
  }
}

/** Reads nothing and answers nothing: a send to it stalls once the socket buffers are full. */
class Stalled extends LoopbackHttpServer {
  readonly requests: IncomingMessage[] = [];
  protected override handle(req: IncomingMessage): Promise<void> {
    req.pause();
    this.requests.push(req);
    return Promise.resolve();
  }
}

let upstream: FakeOpenAI;
let failing: FakeOpenAI;
let early: EarlyAnswer;
let stalled: Stalled;
let gw: GatewayUnderTest;

before(async () => {
  upstream = await new FakeOpenAI('upstream-a').start();
  early = await new EarlyAnswer().start();
  failing = await new FakeOpenAI('failing').start();
  failing.reply = () => ({ kind: 'status', status: 500 });
  stalled = await new Stalled().start();
  const channels = `${channel('a', upstream.url)}  - name: failing
    type: openai
    base_url: ${failing.url}
    keys: ["sk-upstream-failing"]
    models: ["failover-model"]
    priority: 10
    cooldown_ms: 0
  - name: backup
    type: openai
    base_url: ${upstream.url}
    keys: ["sk-upstream-backup"]
    models: ["failover-model"]
    cooldown_ms: 0
  - name: stalled
    type: openai
    base_url: ${stalled.url}
    keys: ["sk-upstream-stalled"]
    models: ["stalled-model"]
    cooldown_ms: 0
  - name: early
    type: openai
    base_url: ${early.url}
    keys: ["sk-upstream-early"]
    models: ["early-*"]
    cooldown_ms: 0
    models_refresh_ms: 0 # no model list read: \`received\` counts every request
  - name: edits
    type: openai
    base_url: ${upstream.url}
    keys: ["sk-upstream-edits"]
    models:
      big-alias: gpt-upstream
    drop_params: [user]
    cooldown_ms: 0
`;
  gw = await startGatewayUnderTest(configWith(channels).replace('body_limit: 65536', 'body_limit: 16777216'));
});

after(async () => {
  await gw.stop();
  await upstream.close();
  await early.close();
  await failing.close();
  await stalled.close();
});

/** A chat body of about `size` bytes whose text names it (`tag`), with quotes, escapes and multibyte text. */
function bodyOf(model: string, tag: string, size: number): Buffer {
  const unit = `${tag} "quoted" \\ back\\slash é ü 日本 \n`;
  const content = unit.repeat(Math.ceil(size / Buffer.byteLength(unit)));
  return Buffer.from(JSON.stringify({ model, messages: [{ role: 'user', content }] }), 'utf8');
}

/** Waits until no finished request holds a slab (a request releases its body just after its answer is out). */
async function slabsBack(): Promise<void> {
  const deadline = Date.now() + 5_000;
  const pool = gw.gateway.runtime.deps.bodyPool;
  while (pool.state.inUse !== 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(pool.state.inUse, 0, 'every slab is back in the pool');
}

/** Sends `raw` and checks the upstream's next request is exactly it. */
async function arrivesWhole(raw: Buffer): Promise<void> {
  const before = upstream.requests.length;
  const res = await post(raw);
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.ok(upstream.requests[before]?.raw.equals(raw), 'the upstream got the client\'s bytes');
}

function post(body: Buffer): Promise<Response> {
  return fetch(`${gw.url}${CHAT}`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }, body });
}

test('large bodies, 8 at a time, each reach the upstream byte for byte while their memory is reused', async () => {
  const sizes = [70_000, 600_000, 1_200_000, 2_600_000, 150_000, 900_000];
  const bodies = Array.from({ length: 36 }, (_, i) => bodyOf('gpt-4o', `req-${i}-`, sizes[i % sizes.length] as number));
  const first = upstream.requests.length;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const res = await post(bodies[next++] as Buffer);
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const got = upstream.requests.slice(first);
  assert.equal(got.length, bodies.length);
  for (const request of got) {
    const tag = /req-\d+-/.exec(request.raw.subarray(0, 200).toString('utf8'))?.[0];
    const sentBody = bodies[Number(tag?.slice(4, -1))];
    assert.ok(sentBody !== undefined, 'the upstream got a body the test sent');
    assert.ok(request.raw.equals(sentBody), `${tag}: the upstream got the client's bytes`);
    assert.equal(request.headers['content-length'], String(sentBody.length));
  }
  await slabsBack();
});

test('an upstream that answers before reading the body gets none of another request\'s bytes', async () => {
  for (let round = 0; round < 3; round++) {
    const own = bodyOf('early-model', `early-${round}-`, 3_000_000);
    const others = Array.from({ length: 4 }, (_, i) => bodyOf('gpt-4o', `other-${round}-${i}-`, 3_000_000));
    const results = await Promise.all([post(own), ...others.map((b) => post(b))]);
    for (const res of results) {
      assert.equal(res.status, 200);
      await res.arrayBuffer();
    }
  }
  // The early upstream may get all of its body or only a part (undici closes the connection when the answer is in
  // before the body is sent); its side of each exchange ends when the gateway's send does.
  await until('the early upstream saw each request end', () => (early.received.length >= 3 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
  assert.equal(early.received.length, 3);
  for (const [round, bytes] of early.received.entries()) {
    const own = bodyOf('early-model', `early-${round}-`, 3_000_000);
    assert.ok(own.subarray(0, bytes.length).equals(bytes), `round ${round}: only its own bytes (${bytes.length} of ${own.length})`);
  }
  // The gateway still forwards large bodies whole afterwards.
  await arrivesWhole(bodyOf('gpt-4o', 'after-', 2_000_000));
});

test('an edited large body (stream_options added, model alias, drop_params) reaches the upstream with only those bytes changed', async () => {
  const content = 'line "q" \\ é 日本\n'.repeat(40_000);
  const raw = Buffer.from(JSON.stringify({ model: 'big-alias', user: 'u-1', messages: [{ role: 'user', content }], stream: true }), 'utf8');
  const expected = removeTopLevelFields(setTopLevelField(setTopLevelField(raw, 'stream_options', { include_usage: true }), 'model', 'gpt-upstream'), new Set(['user']));
  for (let i = 0; i < 4; i++) {
    const before = upstream.requests.length;
    const res = await post(raw);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.ok(text.trimEnd().endsWith('data: [DONE]'), 'the stream ends');
    assert.ok(!text.includes('"choices":[]'), 'the usage chunk the client did not ask for is dropped');
    const got = upstream.requests[before];
    assert.ok(got !== undefined);
    assert.ok(got.raw.equals(expected), 'only the edited fields differ from the client bytes');
    assert.equal(got.headers['content-length'], String(expected.length));
  }
});

test('a failover sends the same large body again, whole, to the next channel', async () => {
  const raw = bodyOf('failover-model', 'failover-', 1_500_000);
  const failed = failing.requests.length;
  const served = upstream.requests.length;
  const res = await post(raw);
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.ok(failing.requests[failed]?.raw.equals(raw), 'the first channel got the body');
  assert.ok(upstream.requests[served]?.raw.equals(raw), 'the next channel got it again, whole');
});

test('a client that leaves while its large body is still being sent leaves the gateway serving', async () => {
  const raw = bodyOf('stalled-model', 'stalled-', 6_000_000);
  const controller = new AbortController();
  const pending = fetch(`${gw.url}${CHAT}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: raw,
    signal: controller.signal,
  }).catch((err: unknown) => err);
  const deadline = Date.now() + 5_000;
  while (stalled.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(stalled.requests.length, 1, 'the send began');
  controller.abort();
  assert.ok((await pending) instanceof Error);
  // The gateway drops the upstream connection (the send cannot go on: the body is released): read what the
  // stalled upstream has, up to the end the gateway made; it is a part of this request's body, nothing else.
  const stalledReq = stalled.requests[0] as IncomingMessage;
  const chunks: Buffer[] = [];
  stalledReq.on('data', (chunk: Buffer) => chunks.push(chunk));
  stalledReq.on('error', () => {});
  const closed = new Promise((resolve) => stalledReq.socket.once('close', resolve));
  stalledReq.resume();
  await withDeadline(closed, 5_000, 'the upstream connection is closed');
  const got = Buffer.concat(chunks);
  assert.ok(got.length < raw.length, 'the send stopped before the end');
  assert.ok(raw.subarray(0, got.length).equals(got), 'only its own bytes');
  await slabsBack();
  await arrivesWhole(bodyOf('gpt-4o', 'after-stall-', 1_000_000));
});

test('every way a request ends gives its slab back: refusals, errors, aborts', async () => {
  const big = (model: string): Buffer => bodyOf(model, 'ends-', 300_000);
  const cases: [string, () => Promise<Response>][] = [
    ['401 bad key', () => fetch(`${gw.url}${CHAT}`, { method: 'POST', headers: { authorization: 'Bearer sk-nope-0000000000000000' }, body: big('gpt-4o') })],
    ['400 bad JSON', () => post(Buffer.concat([big('gpt-4o').subarray(0, -1), Buffer.from(',}')]))],
    ['404 unknown model', () => post(big('no-such-model'))],
    ['403 model outside the key\'s group', () => fetch(`${gw.url}${CHAT}`, { method: 'POST', headers: { authorization: `Bearer ${LIMITED_KEY}` }, body: big('gpt-4o') })],
    ['200 early answer', () => post(big('early-model'))],
    ['200 after failover', () => post(big('failover-model'))],
  ];
  for (const [name, send] of cases) {
    const res = await send();
    assert.ok(res.status === Number(name.slice(0, 3)), `${name}: got ${res.status}`);
    await res.arrayBuffer();
    await slabsBack();
  }
});

test('large Anthropic bodies translated for a Chat channel, 8 at a time, each carry their own text', async () => {
  const texts = Array.from({ length: 16 }, (_, i) => `translated-${i}: ${'fn("é") \\ {}\n'.repeat(20_000 + i * 1_000)}`);
  const first = upstream.requests.length;
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      for (let i = w; i < texts.length; i += 8) {
        const res = await fetch(`${gw.url}/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: texts[i] }] }),
        });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      }
    }),
  );
  const got = upstream.requests.slice(first);
  assert.equal(got.length, texts.length);
  for (const request of got) {
    const messages = request.body['messages'] as { role: string; content: unknown }[];
    const user = messages.find((m) => m.role === 'user');
    const content = typeof user?.content === 'string' ? user.content : (user?.content as { text: string }[]).map((p) => p.text).join('');
    const i = Number(/^translated-(\d+):/.exec(content)?.[1]);
    assert.equal(content, texts[i], `translated-${i}: the Chat body holds the client's text`);
  }
  await slabsBack();
});

test('a pooled body over 8 MiB (read without the WebAssembly scan) reaches the upstream byte for byte', async () => {
  const raw = bodyOf('gpt-4o', 'huge-', 9_500_000);
  assert.ok(raw.length > 8 * 1024 * 1024);
  await arrivesWhole(raw);
  await slabsBack();
});
