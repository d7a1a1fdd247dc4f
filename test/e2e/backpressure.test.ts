// A client that does not read makes the gateway stop reading the upstream: nothing piles up in memory.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { until } from '../helpers/poll.js';
import { TEST_KEY, channel, configWith, startGatewayUnderTest, type GatewayUnderTest } from '../helpers/gateway-under-test.js';

const FRAME_PAYLOAD = 'x'.repeat(16 * 1024);
const FRAMES = 4096; // 64 MiB in all, far more than any socket buffer
let upstream: Server;
let written = 0;
let finished = false;
/** Set while the upstream waits for its socket to drain: the gateway has stopped reading it. */
let blocked = false;
let gw: GatewayUnderTest;

before(async () => {
  // An upstream that writes as fast as its socket accepts, honouring its own backpressure.
  upstream = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    void (async () => {
      for (let i = 0; i < FRAMES && !res.destroyed; i++) {
        const frame = `data: {"choices":[{"index":0,"delta":{"content":"${FRAME_PAYLOAD}"}}]}\n\n`;
        written += frame.length;
        if (!res.write(frame)) {
          blocked = true;
          const done = new AbortController();
          await Promise.race([once(res, 'drain', { signal: done.signal }), once(res, 'close', { signal: done.signal })]).catch(() => undefined);
          done.abort();
          blocked = false;
        }
      }
      res.end('data: [DONE]\n\n');
      finished = true;
    })();
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  // models_refresh_ms 0: this upstream answers every request with the endless stream, a model list read included.
  gw = await startGatewayUnderTest(configWith(channel('a', `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, '    models_refresh_ms: 0\n')));
});

after(async () => {
  await gw.stop();
  upstream.closeAllConnections();
  upstream.close();
});

test('the upstream is paused while the client does not read, and everything arrives once it does', async () => {
  const body = JSON.stringify({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'x' }] });
  const req = request(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` } });
  req.end(body);
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  assert.equal(res.statusCode, 200);
  res.pause();
  // Let every buffer on the way fill up: the upstream waits for drain and has written nothing since the last look
  // (a gateway that buffers would drain it again at once). Then it must be stuck far short of the end.
  let previous = -1;
  await until('the upstream to be stuck on a full socket', () => {
    const stuck = blocked && written === previous;
    previous = written;
    return stuck || finished ? true : undefined;
  }, { timeoutMs: 20_000, intervalMs: 20 });
  const total = FRAMES * (FRAME_PAYLOAD.length + 44);
  assert.equal(finished, false, 'the upstream could write the whole stream: the gateway buffered it');
  assert.ok(written < total / 2, `the upstream wrote ${written} of ${total} bytes while the client read nothing`);

  let received = 0;
  let tail = '';
  res.on('data', (chunk: Buffer) => {
    received += chunk.length;
    tail = (tail + chunk.toString('latin1')).slice(-64);
  });
  res.resume();
  await once(res, 'end');
  assert.equal(finished, true);
  assert.ok(tail.endsWith('data: [DONE]\n\n'));
  assert.ok(received >= FRAMES * FRAME_PAYLOAD.length);
});
