// server.max_answer_bytes: an upstream whose whole (non-stream) answer never ends, or runs past the bound, is refused
// as a broken answer once the bound is passed, its connection dropped: the next channel answers, or the caller gets a
// 502 in its own shape. Without the bound, an endless answer would be held until the memory ran out.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { until } from '../helpers/poll.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const BOUND = 1_048_576;

/** Answers 200 JSON and writes 64 KiB of it at a time, for as long as the reader reads; counts the connections it lost. */
function startEndless(): Promise<{ server: Server; closed: () => number; sent: () => number }> {
  let closed = 0;
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"chatcmpl-endless","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"');
      const more = (): void => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
      };
      res.on('drain', more);
      res.on('close', () => (closed += 1));
      more();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, closed: () => closed, sent: () => sent })));
}

const bounded = (channels: string): string => configWith(channels).replace('  body_limit: 65536\n', `  body_limit: 65536\n  max_answer_bytes: ${BOUND}\n`);

let endless: Awaited<ReturnType<typeof startEndless>>;
let b: FakeOpenAI;
let gw: GatewayUnderTest;
let alone: GatewayUnderTest;

before(async () => {
  endless = await startEndless();
  b = await new FakeOpenAI('b').start();
  const url = `http://127.0.0.1:${(endless.server.address() as AddressInfo).port}`;
  const chatOnly = '    formats: [openai-chat]\n';
  gw = await startGatewayUnderTest(bounded(channel('endless', url, `    priority: 10\n${chatOnly}`) + channel('b', b.url, chatOnly)));
  alone = await startGatewayUnderTest(bounded(channel('endless', url, chatOnly)));
});

after(async () => {
  await gw.stop();
  await alone.stop();
  await b.close();
  await new Promise((resolve) => endless.server.close(resolve));
});

function ask(target: GatewayUnderTest): Promise<Response> {
  return fetch(`${target.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

test('an answer past server.max_answer_bytes fails over to the next channel, and the endless upstream is let go', async () => {
  const before = endless.closed();
  const answer = await ask(gw);
  const text = await answer.text();
  assert.equal(answer.status, 200, text);
  assert.match(text, /reply from b/);
  await until('the endless answer is dropped', () => (endless.closed() > before ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
  // Read no further than the bound and what was in flight (the socket's buffers), not on and on.
  assert.ok(endless.sent() < 4 * BOUND, `${endless.sent()} bytes sent`);
});

test('with no other channel, the caller gets a 502 in its own shape', async () => {
  const answer = await ask(alone);
  const error = (await answer.json()) as { error: { code: string; message: string } };
  assert.equal(answer.status, 502);
  assert.equal(error.error.code, 'upstream_unavailable');
  assert.match(error.error.message, new RegExp(`over ${BOUND} bytes`));
});
