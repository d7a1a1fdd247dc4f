// A whole (non-stream) answer that breaks off while it is read (the connection reset after part of the body) has
// sent the client nothing yet: the next channel answers, natively and translated. Found by the chaos run: the break
// came out as a 500 (or, translated, the cut body was parsed); with every channel breaking, it is a 502.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { FakeOpenAIImages } from '../helpers/fake-openai-images.js';
import { FakeOpenAI } from '../helpers/fake-openai.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

/** Answers 200 with a Content-Length it never reaches: part of a completion, then the connection reset. */
function startCutter(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2000' });
      // The reset waits until the part was read: a reset drops what the peer has not read yet.
      res.write('{"id":"chatcmpl-cut","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"half', () =>
        setTimeout(() => req.socket.resetAndDestroy(), 50),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let cutter: Server;
let cutterTwo: Server;
let b: FakeOpenAI;
let gw: GatewayUnderTest;
let broken: GatewayUnderTest;
let images: FakeOpenAIImages;
let imageGw: GatewayUnderTest;

before(async () => {
  cutter = await startCutter();
  cutterTwo = await startCutter();
  b = await new FakeOpenAI('b').start();
  const url = (s: Server): string => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  const chatOnly = '    formats: [openai-chat]\n';
  gw = await startGatewayUnderTest(configWith(channel('cut', url(cutter), `    priority: 10\n${chatOnly}`) + channel('b', b.url, chatOnly)));
  broken = await startGatewayUnderTest(configWith(channel('cut', url(cutter), chatOnly) + channel('cut-two', url(cutterTwo), chatOnly)));
  images = await new FakeOpenAIImages('images').start();
  const imageOnly = '    formats: [openai-images]\n';
  imageGw = await startGatewayUnderTest(configWith(channel('cut', url(cutter), `    priority: 10\n${imageOnly}`) + channel('images', images.url, imageOnly)));
});

after(async () => {
  await gw.stop();
  await broken.stop();
  await imageGw.stop();
  await images.close();
  await b.close();
  await new Promise((resolve) => cutter.close(resolve));
  await new Promise((resolve) => cutterTwo.close(resolve));
});

const REQUESTS: readonly [string, Record<string, unknown>][] = [
  ['/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }],
  ['/v1/responses', { model: 'gpt-4o', input: 'hi' }],
  ['/v1/messages', { model: 'gpt-4o', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }],
];

function post(target: GatewayUnderTest, path: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${target.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

test('a whole answer cut while it is read fails over to the next channel, natively and translated', async () => {
  for (const [path, body] of REQUESTS) {
    const answer = await post(gw, path, body);
    const text = await answer.text();
    assert.equal(answer.status, 200, `${path}: ${text}`);
    assert.match(text, /reply from b/, path);
    const record = (await gw.usage()).find((r) => r.requestId === answer.headers.get('x-request-id'));
    assert.equal(record?.channel, 'b', path);
  }
});

test('when every channel cuts its answer, the caller gets 502 upstream_unavailable in its own shape', async () => {
  for (const [path, body] of REQUESTS) {
    const answer = await post(broken, path, body);
    const error = (await answer.json()) as { error: { code?: string; type: string } };
    assert.equal(answer.status, 502, path);
    if (path === '/v1/messages') assert.equal(error.error.type, 'api_error');
    else assert.equal(error.error.code, 'upstream_unavailable', path);
  }
});

test('an image answer cut while it is read is a 502, not asked of the next channel (the images were made and billed)', async () => {
  const answer = await post(imageGw, '/v1/images/generations', { model: 'gpt-image-1', prompt: 'a cat', n: 1 });
  const error = (await answer.json()) as { error: { code: string; message: string } };
  assert.equal(answer.status, 502);
  assert.equal(error.error.code, 'upstream_error');
  assert.match(error.error.message, /may have made the images/);
  assert.equal(images.requests.length, 0, 'no second channel paid for the same images');
});
