// A client that goes away: the gateway closes the upstream request at once, tries no other channel,
// and still writes one usage record that says the request was aborted.

import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { FakeOpenAI, type FakeReply, type RecordedRequest } from '../helpers/fake-openai.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import type { UsageRecord } from '../../core/store/store.js';

const WAIT_MS = 5_000;

let a: FakeOpenAI;
let b: FakeOpenAI;
/** a (priority 10) is tried first; b is there to prove an abort neither fails over nor cools a down. */
let gw: GatewayUnderTest;

const defaultReply = (req: RecordedRequest): FakeReply => (req.body['stream'] === true ? { kind: 'stream' } : { kind: 'completion' });

before(async () => {
  a = await new FakeOpenAI('a').start();
  b = await new FakeOpenAI('b').start();
  // a has a long cool-down, so a (wrong) failure mark after an abort would send the next request to b.
  const channelA = `  - name: a
    type: openai
    base_url: ${a.url}
    keys: ["sk-upstream-a"]
    models: ["gpt-*"]
    priority: 10
    cooldown_ms: 600000
`;
  gw = await startGatewayUnderTest(configWith(channelA + channel('b', b.url)));
});

beforeEach(() => {
  a.reply = defaultReply;
  b.reply = defaultReply;
});

after(async () => {
  await gw.stop();
  await a.close();
  await b.close();
});

function chat(body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
}

/** Fails the test (instead of hanging it) when `promise` has not settled within `ms`. */
async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting until ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls until `check` returns a value, or fails after `ms`. */
async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** After an abort, a is not cooled down: the next request still goes to a. */
async function assertAStillFirst(): Promise<void> {
  a.reply = defaultReply;
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'again' }] }),
  });
  assert.equal(res.status, 200);
  const json = (await res.json()) as { choices: { message: { content: string } }[] };
  assert.equal(json.choices[0]?.message.content, 'reply from a', 'the abort did not mark channel a as failed');
}

function recordFor(id: string): Promise<UsageRecord> {
  return eventually(async () => (await gw.usage()).find((r) => r.requestId === id), WAIT_MS, `a usage record for ${id} exists`);
}

test('a client that aborts a slow stream: the upstream sees the close and the record says aborted', async () => {
  const pieces = Array.from({ length: 200 }, (_, i) => `p${i} `);
  a.reply = () => ({ kind: 'stream', pieces, delayMs: 50 });
  const [a0, b0, closed0] = [a.requests.length, b.requests.length, a.closedEarly];
  const upstreamClosed = a.nextEarlyClose();

  const controller = new AbortController();
  const res = await chat({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'count' }] }, controller.signal);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const id = res.headers.get('x-request-id');
  assert.ok(id);

  // Read until the first content piece arrived, then walk away.
  const reader = res.body?.getReader();
  assert.ok(reader);
  const decoder = new TextDecoder();
  let text = '';
  await withDeadline(
    (async () => {
      while (!text.includes('"content":"p0 "')) {
        const { done, value } = await reader.read();
        assert.equal(done, false, 'the stream must not end before the client aborts');
        text += decoder.decode(value, { stream: true });
      }
    })(),
    WAIT_MS,
    'the first content frame arrived',
  );
  controller.abort();
  await assert.rejects(reader.read(), 'reading after the abort fails');

  await withDeadline(upstreamClosed, WAIT_MS, 'the fake upstream saw its response closed early');
  assert.equal(a.closedEarly, closed0 + 1);

  const record = await recordFor(id);
  assert.equal(record.aborted, true);
  assert.equal(record.stream, true);
  assert.equal(record.status, 200, 'the 200 was already on the wire');
  assert.equal(record.errorCode, 'GW_ERR_CLIENT_CLOSED');
  assert.equal(record.channel, 'a');
  assert.equal(record.keyName, 'tester');
  assert.ok(record.ttftMs !== null && record.ttftMs >= 0, `ttft is set (${String(record.ttftMs)})`);
  assert.ok(record.latencyMs >= record.ttftMs);

  // The abort is not a channel failure: nothing was retried elsewhere.
  assert.equal(a.requests.length, a0 + 1);
  assert.equal(b.requests.length, b0);
  await assertAStillFirst();
});

test('a client that aborts a non-stream request while the upstream hangs: the upstream sees the close', async () => {
  a.reply = () => ({ kind: 'hang' });
  const [a0, b0] = [a.requests.length, b.requests.length];
  const records0 = (await gw.usage()).length;
  const upstreamClosed = a.nextEarlyClose();

  const controller = new AbortController();
  const pending = chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'wait' }] }, controller.signal);
  const settled = pending.then(
    () => 'answered',
    (err: unknown) => (err instanceof Error ? err.name : 'rejected'),
  );
  // Abort only once the request is really waiting on the upstream.
  await eventually(() => (a.requests.length > a0 ? true : undefined), WAIT_MS, 'the upstream received the request');
  controller.abort();
  assert.equal(await settled, 'AbortError');

  await withDeadline(upstreamClosed, WAIT_MS, 'the fake upstream saw its response closed early');

  const record = await eventually(
    async () => {
      const all = await gw.usage();
      return all.length > records0 ? all.find((r) => r.aborted && !r.stream && r.channel === 'a') : undefined;
    },
    WAIT_MS,
    'the aborted request was recorded',
  );
  assert.equal(record.aborted, true);
  assert.equal(record.stream, false);
  assert.equal(record.status, 499);
  assert.equal(record.errorCode, 'GW_ERR_CLIENT_CLOSED');
  assert.equal(record.ttftMs, null, 'nothing was sent to the client');
  assert.equal((await gw.usage()).length, records0 + 1, 'exactly one record');
  assert.equal(a.requests.length, a0 + 1);
  assert.equal(b.requests.length, b0, 'an abort does not fail over');
  await assertAStillFirst();
});

test('a client that aborts a stream request before the upstream sent its headers', async () => {
  a.reply = () => ({ kind: 'hang' });
  const [a0, b0] = [a.requests.length, b.requests.length];
  const records0 = (await gw.usage()).length;
  const upstreamClosed = a.nextEarlyClose();

  const controller = new AbortController();
  const settled = chat({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'wait' }] }, controller.signal).then(
    () => 'answered',
    (err: unknown) => (err instanceof Error ? err.name : 'rejected'),
  );
  await eventually(() => (a.requests.length > a0 ? true : undefined), WAIT_MS, 'the upstream received the request');
  controller.abort();
  assert.equal(await settled, 'AbortError');
  await withDeadline(upstreamClosed, WAIT_MS, 'the fake upstream saw its response closed early');

  const record = await eventually(
    async () => {
      const all = await gw.usage();
      return all.length > records0 ? all.find((r) => r.aborted && r.stream && r.status === 499) : undefined;
    },
    WAIT_MS,
    'the aborted stream request was recorded',
  );
  assert.equal(record.errorCode, 'GW_ERR_CLIENT_CLOSED');
  assert.equal(record.ttftMs, null);
  assert.equal(b.requests.length, b0);
  await assertAStillFirst();
});
