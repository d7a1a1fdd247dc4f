// A client that goes away: the gateway closes the upstream request at once, tries no other channel,
// and still writes one usage record that says the request was aborted.

import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { postChat } from '../helpers/chat-requests.js';
import { FakeOpenAI, defaultReply } from '../helpers/fake-openai.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { readUntil, until, withDeadline } from '../helpers/poll.js';
import type { UsageRecord } from '../../core/store/store.js';

const WAIT_MS = 5_000;
const POLL = { timeoutMs: WAIT_MS, intervalMs: 20 };

let a: FakeOpenAI;
let b: FakeOpenAI;
/** a (priority 10) is tried first; b is there to prove an abort neither fails over nor cools a down. */
let gw: GatewayUnderTest;

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
  return postChat(gw.url, body, { signal });
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
  return until(`a usage record for ${id}`, async () => (await gw.usage()).find((r) => r.requestId === id), POLL);
}

/** Once there are more than `records0` usage records: the one that `matches`. */
function newRecord(records0: number, what: string, matches: (r: UsageRecord) => boolean): Promise<UsageRecord> {
  return until(
    what,
    async () => {
      const all = await gw.usage();
      return all.length > records0 ? all.find(matches) : undefined;
    },
    POLL,
  );
}

/** Sends `body`, aborts it once the (hanging) upstream a received it, and waits for the gateway to close that upstream request. */
async function abortWhileUpstreamWaits(body: Record<string, unknown>): Promise<void> {
  const a0 = a.requests.length;
  const upstreamClosed = a.nextEarlyClose();

  const controller = new AbortController();
  const settled = chat(body, controller.signal).then(
    () => 'answered',
    (err: unknown) => (err instanceof Error ? err.name : 'rejected'),
  );
  // Abort only once the request is really waiting on the upstream.
  await until('the upstream to receive the request', () => (a.requests.length > a0 ? true : undefined), POLL);
  controller.abort();
  assert.equal(await settled, 'AbortError');

  await withDeadline(upstreamClosed, WAIT_MS, 'the fake upstream saw its response closed early');
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
  await readUntil(reader, '"content":"p0 "', WAIT_MS, 'the first content frame');
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

  await abortWhileUpstreamWaits({ model: 'gpt-4o', messages: [{ role: 'user', content: 'wait' }] });

  const record = await newRecord(records0, 'the aborted request to be recorded', (r) => r.aborted && !r.stream && r.channel === 'a');
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
  const b0 = b.requests.length;
  const records0 = (await gw.usage()).length;

  await abortWhileUpstreamWaits({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'wait' }] });

  const record = await newRecord(records0, 'the aborted stream request to be recorded', (r) => r.aborted && r.stream && r.status === 499);
  assert.equal(record.errorCode, 'GW_ERR_CLIENT_CLOSED');
  assert.equal(record.ttftMs, null);
  assert.equal(b.requests.length, b0);
  await assertAStillFirst();
});
