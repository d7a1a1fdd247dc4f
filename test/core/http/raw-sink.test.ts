// RawSink over a real loopback socket: frames written to a client that does not read wait on one drain,
// however many of them pile up (no listener per frame), and all of them arrive once the client reads.

import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { RawSink } from '../../../core/http/raw-sink.js';
import { until } from '../../helpers/poll.js';

test('a batch written into a full buffer waits on one drain, and every frame reaches the client', async () => {
  const frames = 3000;
  const frame = Buffer.alloc(2048, 0x61);
  let checked: { drainListeners: number; sameWait: boolean } | null = null;
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    const sink = new RawSink(res, 'req_test');
    sink.open(200, { 'content-type': 'text/event-stream' });
    sink.cork();
    const waits = new Set<Promise<void>>();
    for (let i = 0; i < frames; i++) {
      const wait = sink.write(frame);
      if (wait !== undefined) waits.add(wait);
    }
    sink.uncork();
    checked = { drainListeners: res.listenerCount('drain'), sameWait: waits.size === 1 };
    void [...waits][0]?.then(() => sink.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const received = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/', method: 'GET' }, (res) => {
        // Not read until the server has written every frame: its buffer fills and its writes report backpressure.
        res.pause();
        until('the server wrote every frame', () => checked ?? undefined, { timeoutMs: 5000, intervalMs: 10 }).then(() => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.on('end', () => resolve(bytes));
          res.resume();
        }, reject);
      });
      req.on('error', reject);
      req.end();
    });
    assert.ok(checked !== null);
    const { drainListeners, sameWait } = checked as { drainListeners: number; sameWait: boolean };
    assert.equal(sameWait, true, 'every write into the full buffer got the same wait');
    assert.ok(drainListeners <= 1, `${drainListeners} drain listeners`);
    assert.equal(received, frames * frame.length);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
