// UpstreamBody and UpstreamCall: an upstream answer over real HTTP on loopback, read chunk by chunk through
// undici's dispatch: chunks in order, backpressure to the upstream socket, every way a body can end, the
// client's disconnect aborting the call, 1xx answers skipped, a discarded body keeping its connection.

import assert from 'node:assert/strict';
import { nextChunk, pulledBody } from '../../../core/sse/pulled-body.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Pool } from 'undici';
import { ClientAbort } from '../../../core/client-abort.js';
import type { UpstreamResponse } from '../../../core/providers/provider.js';
import { UpstreamBody, type BodySource } from '../../../core/providers/upstream-body.js';
import { UpstreamCall } from '../../../core/providers/upstream-call.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const text = (r: IteratorResult<Uint8Array>): string => Buffer.from(r.value as Uint8Array).toString();

class RecordingSource implements BodySource {
  readonly calls: string[] = [];
  pause(): void {
    this.calls.push('pause');
  }
  resume(): void {
    this.calls.push('resume');
  }
  cancel(): void {
    this.calls.push('cancel');
  }
}

describe('UpstreamBody', () => {
  it('yields the bytes in order: what came while the reader was busy as one chunk, what comes while it waits alone', async () => {
    const body = new UpstreamBody(new RecordingSource());
    body.push(Buffer.from('a'));
    body.push(Buffer.from('b'));
    const got = [text(await nextChunk(body))];
    const waiting = nextChunk(body);
    body.push(Buffer.from('c'));
    got.push(text(await waiting));
    body.push(Buffer.from('d'));
    body.end();
    got.push(text(await nextChunk(body)));
    assert.equal((await nextChunk(body)).done, true);
    assert.deepEqual(got, ['ab', 'c', 'd']);
  });

  it('pauses its source once 16 chunks wait unread, and resumes it when the reader takes them', async () => {
    const source = new RecordingSource();
    const body = new UpstreamBody(source);
    for (let i = 0; i < 15; i++) body.push(Buffer.from(String.fromCharCode(97 + i)));
    assert.deepEqual(source.calls, []);
    body.push(Buffer.from('p'));
    body.push(Buffer.from('q'));
    assert.deepEqual(source.calls, ['pause'], 'paused once, at the 16th unread chunk');
    assert.equal(text(await nextChunk(body)), 'abcdefghijklmnopq');
    assert.deepEqual(source.calls, ['pause', 'resume']);
    body.push(Buffer.from('r'));
    body.end();
    assert.equal(text(await nextChunk(body)), 'r');
  });

  it('a failure reaches the reader after the chunks already received, and stays', async () => {
    const body = new UpstreamBody(new RecordingSource());
    body.push(Buffer.from('x'));
    body.fail(new Error('socket reset'));
    body.push(Buffer.from('late'));
    assert.equal(text(await nextChunk(body)), 'x');
    await assert.rejects(nextChunk(body), /socket reset/);
    await assert.rejects(nextChunk(body), /socket reset/);
  });

  it('a reader that stops early cancels the source once; an end after that changes nothing', async () => {
    const source = new RecordingSource();
    const body = new UpstreamBody(source);
    body.push(Buffer.from('x'));
    await body.return();
    await body.return();
    body.end();
    assert.deepEqual(source.calls, ['cancel']);
  });

  it('a reader that leaves after the end cancels nothing', async () => {
    const source = new RecordingSource();
    const body = new UpstreamBody(source);
    body.end();
    assert.equal((await nextChunk(body)).done, true);
    await body.return();
    assert.deepEqual(source.calls, []);
  });
});

describe('UpstreamCall over loopback HTTP', () => {
  let server: Server;
  let pool: Pool;
  let origin: string;
  let handle: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;

  before(async () => {
    server = createServer((req, res) => handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    pool = new Pool(origin);
  });

  after(async () => {
    await pool.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function call(abort = new ClientAbort(), options: { bodyTimeout?: number } = {}): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      pool.dispatch({ method: 'POST', path: '/', body: '{}', headers: { 'content-type': 'application/json' }, ...options }, new UpstreamCall(abort, resolve, reject));
    });
  }

  async function readAll(res: UpstreamResponse): Promise<string> {
    const parts: Buffer[] = [];
    const body = pulledBody(res.body);
    for (let next = await nextChunk(body); next.done !== true; next = await nextChunk(body)) parts.push(Buffer.from(next.value));
    return Buffer.concat(parts).toString();
  }

  it('settles with the status and flattened headers, then the whole body', async () => {
    handle = (_req, res) => {
      res.writeHead(201, [['content-type', 'application/json'], ['x-multi', 'a'], ['x-multi', 'b']]);
      res.write('{"a":');
      setTimeout(() => res.end('1}'), 5);
    };
    const res = await call();
    assert.equal(res.status, 201);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers['x-multi'], 'a, b');
    assert.equal(await readAll(res), '{"a":1}');
  });

  it('does not keep undici\'s raw header Buffers (views of the socket\'s first read) while the body streams', async () => {
    let finish: () => void = () => undefined;
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-long-header': 'x'.repeat(512) });
      res.write('data: 1\n\n');
      finish = () => res.end('data: 2\n\n');
    };
    let controller: { rawHeaders?: unknown } | undefined;
    // The same handler, with the controller undici hands it recorded on the way in.
    class Recording extends UpstreamCall {
      override onRequestStart(c: Parameters<UpstreamCall['onRequestStart']>[0]): void {
        controller = c;
        super.onRequestStart(c);
      }
    }
    const res = await new Promise<UpstreamResponse>((resolve, reject) => {
      pool.dispatch({ method: 'POST', path: '/', body: '{}' }, new Recording(new ClientAbort(), resolve, reject));
    });
    assert.equal(res.headers['x-long-header']?.length, 512, 'the headers were read');
    assert.notEqual(controller, undefined);
    assert.equal(controller?.rawHeaders, null, 'the raw header Buffers are let go once the headers are read');
    finish();
    assert.equal(await readAll(res), 'data: 1\n\ndata: 2\n\n');
  });

  it('skips 1xx answers (103 Early Hints) and settles with the final response', async () => {
    handle = (_req, res) => {
      res.writeEarlyHints({ link: '</x>; rel=preload' });
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('final');
      }, 5);
    };
    const res = await call();
    assert.equal(res.status, 200);
    assert.equal(await readAll(res), 'final');
  });

  it('a reader that does not read slows the upstream: its writes back up until the reader catches up', async () => {
    let backedUp = false;
    let written = 0;
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const piece = Buffer.alloc(64 * 1024, 0x61);
      const pump = (): void => {
        while (written < 64) {
          written++;
          if (!res.write(piece)) {
            backedUp = true;
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    };
    const res = await call();
    for (let i = 0; i < 20 && !backedUp; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(backedUp, true, 'the upstream socket backed up while nobody read');
    assert.ok(written < 64, `the upstream was held back (${written} of 64 pieces written)`);
    assert.equal((await readAll(res)).length, 64 * 64 * 1024);
  });

  it('the client going away aborts the call: the upstream sees its connection close', async () => {
    const abort = new ClientAbort();
    const upstreamClosed = new Promise<void>((resolve) => {
      handle = (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: 1\n\n');
        res.on('close', () => resolve());
      };
    });
    const res = await call(abort);
    const it = pulledBody(res.body);
    assert.equal(text(await nextChunk(it)), 'data: 1\n\n');
    const next = nextChunk(it);
    abort.abort();
    await assert.rejects(next, /client closed the request/);
    await upstreamClosed;
  });

  it('a client already gone before the response aborts the call and rejects it', async () => {
    const abort = new ClientAbort();
    handle = (req) => {
      // Answers nothing: only the abort can end this call.
      req.resume();
      setImmediate(() => abort.abort());
    };
    await assert.rejects(call(abort), (err: Error) => {
      assert.match(err.message, /client closed the request/);
      assert.equal(err.name, 'AbortError');
      // No frames: Node reads the stack when undici destroys the socket with it, and under
      // --enable-source-maps mapping frames cost ~0.2 ms per aborted stream (upstream-call.ts).
      assert.equal(err.stack, 'AbortError: the client closed the request');
      return true;
    });
    assert.ok(new Error('x').stack?.includes('\n    at '), 'other errors keep their frames');
  });

  it('a body cut off mid-way fails the reader after the chunks that came', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const res = await call();
    const it = pulledBody(res.body);
    assert.equal(text(await nextChunk(it)), 'data: 1\n\n');
    await assert.rejects(nextChunk(it));
  });

  it('a body that stalls past bodyTimeout fails with undici\'s timeout', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
    };
    const res = await call(new ClientAbort(), { bodyTimeout: 100 });
    const it = pulledBody(res.body);
    await nextChunk(it);
    await assert.rejects(nextChunk(it), (err: Error) => err.name === 'BodyTimeoutError');
  });

  it('a connection refused rejects the call before any response', async () => {
    const closed = new Pool('http://127.0.0.1:1');
    try {
      await assert.rejects(
        new Promise((resolve, reject) => closed.dispatch({ method: 'POST', path: '/', body: '{}' }, new UpstreamCall(new ClientAbort(), resolve, reject))),
        (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED',
      );
    } finally {
      await closed.destroy();
    }
  });

  it('a discarded body is read to its end and its connection serves the next call', async () => {
    const used = new Set<Socket>();
    handle = (req, res) => {
      used.add(req.socket);
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'x'.repeat(20_000) } }));
    };
    // One connection only: had the discard closed it, the second call would need a new one.
    const single = new Pool(origin, { connections: 1 });
    const send = (): Promise<UpstreamResponse> =>
      new Promise((resolve, reject) => single.dispatch({ method: 'POST', path: '/', body: '{}' }, new UpstreamCall(new ClientAbort(), resolve, reject)));
    try {
      const first = await send();
      // Called twice (a caller may), both settle.
      await Promise.all([first.discard(), first.discard()]);
      const second = await send();
      assert.equal(second.status, 429);
      await second.discard();
      assert.equal(used.size, 1, 'both calls went over one kept-alive connection');
    } finally {
      await single.destroy();
    }
  });
});
