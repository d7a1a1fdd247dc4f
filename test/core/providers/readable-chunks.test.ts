// readableChunks: the upstream body's chunks in order, the upstream paused while the reader lags, and every way a
// body can end (end, error, cut off, reader gone) seen by the reader.

import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { readableChunks } from '../../../core/providers/readable-chunks.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function source(): Readable {
  return new Readable({ read() {} });
}

describe('readableChunks', () => {
  it('yields every chunk in order, whether it arrived before or while the reader waits', async () => {
    const body = source();
    body.push(Buffer.from('a'));
    const it = readableChunks(body)[Symbol.asyncIterator]();
    await tick();
    body.push(Buffer.from('b'));
    const got: string[] = [];
    got.push(Buffer.from((await it.next()).value as Uint8Array).toString());
    got.push(Buffer.from((await it.next()).value as Uint8Array).toString());
    const waiting = it.next();
    body.push(Buffer.from('c'));
    got.push(Buffer.from((await waiting).value as Uint8Array).toString());
    body.push(null);
    assert.equal((await it.next()).done, true);
    assert.deepEqual(got, ['a', 'b', 'c']);
  });

  it('pauses the upstream while chunks pile up unread, and resumes it once they are read', async () => {
    const body = source();
    const it = readableChunks(body)[Symbol.asyncIterator]();
    await tick();
    for (let i = 0; i < 40; i++) body.push(Buffer.from(String(i)));
    await tick();
    assert.equal(body.isPaused(), true, 'a reader that lags pauses the upstream');
    const got: string[] = [];
    for (;;) {
      const r = await it.next();
      if (r.done === true) break;
      got.push(Buffer.from(r.value).toString());
      if (got.length === 40) body.push(null);
      await tick();
    }
    assert.deepEqual(got, Array.from({ length: 40 }, (_, i) => String(i)));
    assert.equal(body.isPaused(), false);
  });

  it('an upstream error reaches the reader after the chunks already received', async () => {
    const body = source();
    const it = readableChunks(body)[Symbol.asyncIterator]();
    body.push(Buffer.from('x'));
    await tick();
    body.destroy(new Error('socket reset'));
    assert.equal(Buffer.from((await it.next()).value as Uint8Array).toString(), 'x');
    await assert.rejects(it.next(), /socket reset/);
  });

  it('a body destroyed without an error is a cut-off body, not a clean end', async () => {
    const body = source();
    const it = readableChunks(body)[Symbol.asyncIterator]();
    const waiting = it.next();
    body.destroy();
    await assert.rejects(waiting, /closed before its end/);
  });

  it('a reader that stops early destroys the body, and a later error does not crash the process', async () => {
    const body = source();
    const it = readableChunks(body)[Symbol.asyncIterator]();
    body.push(Buffer.from('x'));
    await it.next();
    await it.return?.();
    assert.equal(body.destroyed, true);
    body.emit('error', new Error('late'));
    await tick();
  });
});
