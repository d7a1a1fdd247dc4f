// Shutdown and connections that never carried a request (core/http/server.ts): Node's closeIdleConnections
// skips them, so the gateway drops them itself; a kept-alive connection that carried one is closed as idle.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { configWith, startGatewayUnderTest, TEST_KEY } from '../helpers/gateway-under-test.js';

const MOCK = `  - name: mock
    type: mock
    models: ["gpt-*"]
`;

async function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  return socket;
}

/** Resolves when the peer closes the connection (end or reset). */
function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    socket.once('close', () => resolve());
    socket.on('error', () => undefined);
    socket.resume();
  });
}

test('close() drops connections that never sent a request, however many, and does not wait for them', { timeout: 20_000 }, async () => {
  const gw = await startGatewayUnderTest(configWith(MOCK));
  const quiet = await Promise.all(Array.from({ length: 5 }, () => open(gw.url)));
  // One that carried a request (kept alive) and one that left before close(): neither may upset the bookkeeping.
  const used = await open(gw.url);
  const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  used.write(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${TEST_KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const [first] = (await once(used, 'data')) as [Buffer];
  assert.match(first.toString('latin1'), /^HTTP\/1\.1 200 /);
  const gone = await open(gw.url);
  gone.destroy();
  await once(gone, 'close');

  const allClosed = Promise.all([...quiet, used].map(closed));
  const started = Date.now();
  await gw.stop();
  await allClosed;
  // Without the dropping, close() waits for the quiet clients: here, forever (they never send or leave).
  assert.ok(Date.now() - started < 10_000, `close() took ${Date.now() - started} ms`);
  for (const socket of quiet) assert.ok(socket.destroyed);
});
