// Failover between channels: before the first byte reached the client a failed channel is replaced by the next;
// once a stream has begun, a break becomes an in-band error frame and no other channel is tried.

import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import OpenAI from 'openai';
import { parseOpenAIError, postChat, type OpenAIError } from '../helpers/chat-requests.js';
import { freePort } from '../helpers/cli-process.js';
import { FakeOpenAI, defaultReply, type FakeReply } from '../helpers/fake-openai.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';
import { withDeadline } from '../helpers/poll.js';

const FIRST = '    priority: 10\n';
const CHAT_BODY = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
const STREAM_BODY = JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] });

let a: FakeOpenAI;
let b: FakeOpenAI;
/** Channel a (priority 10) is always tried before channel b (priority 0). */
let gw: GatewayUnderTest;

// delayMs matters: without it the fake destroys its socket in the same tick as its (corked) writes, so the two
// frames never leave it and the break looks like a stream that broke before its first frame.
const BREAKS_AFTER_TWO_FRAMES: FakeReply = { kind: 'stream', breakAfter: 2, delayMs: 10 };

before(async () => {
  a = await new FakeOpenAI('a').start();
  b = await new FakeOpenAI('b').start();
  gw = await startGatewayUnderTest(configWith(channel('a', a.url, FIRST) + channel('b', b.url)));
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

function chat(target: GatewayUnderTest, body: string = CHAT_BODY): Promise<Response> {
  return postChat(target.url, body);
}

/** A loopback URL where nothing listens: a port that was just bound and released. */
async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

/** The usage record of the request answered with this x-request-id. */
async function recordOf(target: GatewayUnderTest, res: Response) {
  const id = res.headers.get('x-request-id');
  assert.ok(id, 'the response carries x-request-id');
  const record = (await target.usage()).find((r) => r.requestId === id);
  assert.ok(record, `a usage record exists for ${id}`);
  return record;
}

async function openAIError(res: Response): Promise<OpenAIError> {
  return parseOpenAIError(await res.text());
}

function counts(): [number, number] {
  return [a.requests.length, b.requests.length];
}

test('priority: with both channels healthy, a answers and b is never asked', async () => {
  const [a0, b0] = counts();
  for (let i = 0; i < 3; i++) {
    const res = await chat(gw);
    assert.equal(res.status, 200);
    const json = (await res.json()) as { choices: { message: { content: string } }[] };
    assert.equal(json.choices[0]?.message.content, 'reply from a');
  }
  assert.deepEqual(counts(), [a0 + 3, b0]);
});

test('a channel that refuses connections is skipped: b answers and the record names b', async () => {
  const dead = await closedPortUrl();
  const local = await startGatewayUnderTest(configWith(channel('a', dead, FIRST) + channel('b', b.url)));
  try {
    const b0 = b.requests.length;
    const res = await chat(local);
    assert.equal(res.status, 200);
    const json = (await res.json()) as { choices: { message: { content: string } }[] };
    assert.equal(json.choices[0]?.message.content, 'reply from b');
    assert.equal(b.requests.length, b0 + 1);
    assert.equal(b.requests[b0]?.headers['authorization'], 'Bearer sk-upstream-b');
    const record = await recordOf(local, res);
    assert.equal(record.channel, 'b');
    assert.equal(record.status, 200);
    assert.equal(record.errorCode, null);

    // A stream fails over the same way: nothing had been sent yet.
    const stream = await chat(local, STREAM_BODY);
    assert.equal(stream.status, 200);
    const text = await stream.text();
    assert.ok(text.includes('"content":"b"'), text);
    assert.ok(text.endsWith('data: [DONE]\n\n'));
    assert.equal((await recordOf(local, stream)).channel, 'b');
  } finally {
    await local.stop();
  }
});

test('every channel unreachable: 502 upstream_unavailable in the OpenAI shape', async () => {
  const local = await startGatewayUnderTest(configWith(channel('a', await closedPortUrl(), FIRST) + channel('b', await closedPortUrl())));
  try {
    const res = await chat(local);
    assert.equal(res.status, 502);
    const error = await openAIError(res);
    assert.equal(error.code, 'upstream_unavailable');
    assert.equal(error.type, 'server_error');
    assert.equal(error.param, null);
    assert.match(error.message, /All 2 upstreams for model "gpt-4o" failed/);
    const record = await recordOf(local, res);
    assert.equal(record.status, 502);
    assert.equal(record.errorCode, 'GW_ERR_UPSTREAM_UNAVAILABLE');
  } finally {
    await local.stop();
  }
});

test('a answers 500: b answers the same request, byte for byte', async () => {
  a.reply = () => ({ kind: 'status', status: 500 });
  const [a0, b0] = counts();
  const res = await chat(gw);
  assert.equal(res.status, 200);
  const json = (await res.json()) as { choices: { message: { content: string } }[] };
  assert.equal(json.choices[0]?.message.content, 'reply from b');
  assert.deepEqual(counts(), [a0 + 1, b0 + 1]);
  assert.equal(b.requests[b0]?.raw.toString(), CHAT_BODY);
  assert.equal((await recordOf(gw, res)).channel, 'b');
});

test('a answers 500 to a stream request: b streams it', async () => {
  a.reply = () => ({ kind: 'status', status: 503 });
  const [a0, b0] = counts();
  const res = await chat(gw, STREAM_BODY);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const text = await res.text();
  assert.ok(text.includes('"content":"b"'), text);
  assert.ok(!text.includes('"error"'), text);
  assert.ok(text.endsWith('data: [DONE]\n\n'));
  assert.deepEqual(counts(), [a0 + 1, b0 + 1]);
  const record = await recordOf(gw, res);
  assert.equal(record.channel, 'b');
  assert.equal(record.stream, true);
});

test('a answers 429: b answers', async () => {
  a.reply = () => ({ kind: 'status', status: 429 });
  const res = await chat(gw);
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  assert.equal((await recordOf(gw, res)).channel, 'b');
});

test('both answer 429: the client gets 429 rate_limit_exceeded with the upstream Retry-After', async () => {
  a.reply = () => ({ kind: 'status', status: 429, headers: { 'retry-after': '3' } });
  b.reply = () => ({ kind: 'status', status: 429, headers: { 'retry-after': '7' } });
  const [a0, b0] = counts();
  const res = await chat(gw);
  assert.equal(res.status, 429);
  assert.equal(res.headers.get('retry-after'), '7', 'the last failure decides');
  const error = await openAIError(res);
  assert.equal(error.code, 'rate_limit_exceeded');
  assert.equal(error.type, 'requests', "OpenAI's 429s name the limit: requests or tokens");
  assert.equal(error.param, null);
  assert.match(error.message, /rate limited/);
  assert.deepEqual(counts(), [a0 + 1, b0 + 1]);
  const record = await recordOf(gw, res);
  assert.equal(record.status, 429);
  assert.equal(record.errorCode, 'GW_ERR_UPSTREAM_RATE_LIMITED');
});

test('both answer 500: 502 upstream_error, without the upstream body', async () => {
  a.reply = () => ({ kind: 'status', status: 500 });
  b.reply = () => ({ kind: 'status', status: 500 });
  const [a0, b0] = counts();
  const res = await chat(gw);
  assert.equal(res.status, 502);
  const error = await openAIError(res);
  assert.equal(error.code, 'upstream_error');
  assert.equal(error.type, 'server_error');
  assert.match(error.message, /HTTP 500/);
  assert.doesNotMatch(error.message, /fake/, 'the upstream error body is not shown to the caller');
  assert.deepEqual(counts(), [a0 + 1, b0 + 1]);
  const record = await recordOf(gw, res);
  assert.equal(record.status, 502);
  assert.equal(record.errorCode, 'GW_ERR_UPSTREAM_ERROR');
});

test('a 400 from the upstream is the caller\'s fault: passed through as-is, b is not tried', async () => {
  const upstreamError = {
    error: { message: 'This model maximum context length is 8 tokens.', type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' },
  };
  a.reply = () => ({ kind: 'status', status: 400, body: upstreamError });
  const [a0, b0] = counts();
  const res = await chat(gw);
  assert.equal(res.status, 400);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(await res.text(), JSON.stringify(upstreamError));
  assert.deepEqual(counts(), [a0 + 1, b0]);
  const record = await recordOf(gw, res);
  assert.equal(record.channel, 'a');
  assert.equal(record.status, 400);
});

test('a stream that breaks after it began: first frames, then an in-band error frame; b never asked', async () => {
  a.reply = () => BREAKS_AFTER_TWO_FRAMES;
  const [a0, b0] = counts();
  const res = await chat(gw, STREAM_BODY);
  assert.equal(res.status, 200, 'the status was on the wire before the break');
  const text = await res.text();
  const frames = text.split('\n\n').filter((f) => f !== '');
  assert.ok(frames.length >= 2, text);
  const last = frames.at(-1) ?? '';
  assert.ok(last.startsWith('data: '), last);
  const error = (JSON.parse(last.slice('data: '.length)) as { error: OpenAIError }).error;
  assert.deepEqual(Object.keys(error), ['message', 'type', 'param', 'code']);
  assert.equal(error.code, 'upstream_stream_error');
  assert.equal(error.type, 'server_error');
  // What did arrive is the upstream's own frames, unchanged, in order.
  for (const frame of frames.slice(0, -1)) {
    const chunk = JSON.parse(frame.slice('data: '.length)) as { object: string };
    assert.equal(chunk.object, 'chat.completion.chunk');
  }
  assert.ok(text.includes('"role":"assistant"'), 'the first upstream frame reached the client');
  assert.ok(text.includes('"content":"Hel"'), 'the second upstream frame reached the client');
  assert.ok(!text.includes('"content":"lo "'), 'nothing after the break');
  assert.ok(!text.includes('[DONE]'));
  assert.deepEqual(counts(), [a0 + 1, b0]);
  const record = await recordOf(gw, res);
  assert.equal(record.channel, 'a');
  assert.equal(record.status, 200);
  assert.equal(record.stream, true);
  assert.equal(record.errorCode, 'GW_ERR_UPSTREAM_STREAM_BROKEN');
  assert.equal(record.aborted, false);
});

test('the openai SDK raises an APIError when the stream breaks, after the text that did arrive', async () => {
  a.reply = () => BREAKS_AFTER_TWO_FRAMES;
  const b0 = b.requests.length;
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true });
  let text = '';
  await assert.rejects(
    async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    },
    (err: unknown) => {
      assert.ok(err instanceof OpenAI.APIError, `expected an APIError, got ${String(err)}`);
      assert.equal(err.code, 'upstream_stream_error');
      assert.equal(err.type, 'server_error');
      return true;
    },
  );
  assert.equal(text, 'Hel');
  assert.equal(b.requests.length, b0);
});

test('a channel that does not answer within timeout_ms is abandoned for b', async () => {
  const slow = new FakeOpenAI('slow');
  await slow.start();
  slow.reply = () => ({ kind: 'hang' });
  const local = await startGatewayUnderTest(configWith(channel('a', slow.url, `${FIRST}    timeout_ms: 200\n`) + channel('b', b.url)));
  try {
    const b0 = b.requests.length;
    const closed = slow.nextEarlyClose();
    const res = await chat(local);
    assert.equal(res.status, 200);
    const json = (await res.json()) as { choices: { message: { content: string } }[] };
    assert.equal(json.choices[0]?.message.content, 'reply from b');
    assert.equal(slow.requests.length, 1);
    assert.equal(b.requests.length, b0 + 1);
    assert.equal((await recordOf(local, res)).channel, 'b');
    // The abandoned request is closed, not left hanging on the upstream.
    await withDeadline(closed, 5_000, 'the hanging upstream request was closed');
  } finally {
    await local.stop();
    await slow.close();
  }
});

test('the only channel times out: 504 upstream_timeout', async () => {
  const slow = new FakeOpenAI('slow');
  await slow.start();
  slow.reply = () => ({ kind: 'hang' });
  const local = await startGatewayUnderTest(configWith(channel('a', slow.url, '    timeout_ms: 200\n')));
  try {
    const res = await chat(local);
    assert.equal(res.status, 504);
    const error = await openAIError(res);
    assert.equal(error.code, 'upstream_timeout');
    assert.match(error.message, /The upstream for model "gpt-4o" failed/);
    assert.equal((await recordOf(local, res)).errorCode, 'GW_ERR_UPSTREAM_TIMEOUT');
  } finally {
    await local.stop();
    await slow.close();
  }
});
