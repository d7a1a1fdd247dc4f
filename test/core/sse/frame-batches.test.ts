// frameBatches: the parser and one synchronous transform in one lazy loop; what each transform outcome does to
// the upstream read and to the frames the client gets.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { UpstreamBody } from '../../../core/providers/upstream-body.js';
import { frameBatches, PASS_THROUGH, type FrameTransform } from '../../../core/sse/frame-batches.js';
import { SseFrameParser } from '../../../core/sse/frame-parser.js';
import { encodeFrame } from '../../../core/sse/frame-writer.js';
import type { SseFrame } from '../../../core/sse/frame.js';
import { fixturePath } from '../../helpers/repo-root.js';

const text = (frames: readonly SseFrame[]): string => frames.map((f) => Buffer.from(f.raw).toString('utf8')).join('');

async function collect(batches: AsyncIterable<readonly SseFrame[]>): Promise<SseFrame[][]> {
  const out: SseFrame[][] = [];
  for await (const batch of batches) out.push([...batch]);
  return out;
}

/** An upstream that counts how many chunks were pulled and whether it was closed early. */
function upstream(chunks: readonly string[], failAfter?: Error): { body: AsyncGenerator<Uint8Array>; pulls: () => number; closed: () => boolean } {
  let pulls = 0;
  let closed = false;
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      for (const chunk of chunks) {
        pulls++;
        yield Buffer.from(chunk);
      }
      if (failAfter !== undefined) throw failAfter;
    } finally {
      closed = true;
    }
  }
  return { body: body(), pulls: () => pulls, closed: () => closed };
}

describe('frameBatches', () => {
  it('passes every frame through byte for byte, one batch per read, the unterminated last frame included', async () => {
    const input = readFileSync(fixturePath('sse/lone-cr.sse'));
    const chunks: string[] = [];
    // 7-byte reads split frames, CRLFs and multibyte characters anywhere; latin1 keeps the bytes as they are.
    for (let i = 0; i < input.length; i += 7) chunks.push(input.subarray(i, i + 7).toString('latin1'));
    const parser = new SseFrameParser();
    const expected = [...parser.push(input), ...parser.end()];
    const seen: Buffer[] = [];
    async function* body(): AsyncGenerator<Uint8Array> {
      for (const chunk of chunks) yield Buffer.from(chunk, 'latin1');
    }
    const batches = await collect(frameBatches(body(), PASS_THROUGH));
    for (const batch of batches) {
      assert.ok(batch.length > 0, 'no empty batch is yielded');
      for (const frame of batch) seen.push(Buffer.from(frame.raw));
    }
    assert.deepEqual(Buffer.concat(seen), input);
    assert.deepEqual(
      batches.flat().map((f) => [f.event, f.data]),
      expected.map((f) => [f.event, f.data]),
    );
  });

  it('frames of one read come as one batch; a read that completes no frame yields nothing', async () => {
    const up = upstream(['data: 1\n\ndata: 2\n\n', 'data: 3', '\n\n']);
    const batches = await collect(frameBatches(up.body, PASS_THROUGH));
    assert.deepEqual(batches.map((b) => b.map((f) => f.data)), [['1', '2'], ['3']]);
  });

  it('reads the upstream lazily, and closing the batches closes the upstream without draining it', async () => {
    const up = upstream(['data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n']);
    const batches = frameBatches(up.body, PASS_THROUGH);
    const first = await batches.next();
    assert.equal(first.done, false);
    assert.equal(up.pulls(), 1);
    await batches.return?.();
    assert.equal(up.pulls(), 1, 'closing the frame stream must not drain the upstream');
    assert.equal(up.closed(), true, 'the upstream body is closed');
  });

  it('a transform that is done stops the read and closes the upstream; end() is not called', async () => {
    const up = upstream(['data: a\n\n', 'data: stop\n\ndata: after\n\n', 'data: never\n\n']);
    let ended = false;
    const stopAt: FrameTransform & { done: boolean } = {
      done: false,
      push(frames) {
        const out: SseFrame[] = [];
        for (const frame of frames) {
          out.push(frame);
          if (frame.data === 'stop') {
            this.done = true;
            break;
          }
        }
        return out;
      },
      end() {
        ended = true;
        return [encodeFrame('end')];
      },
      fail: PASS_THROUGH.fail,
    };
    const batches = await collect(frameBatches(up.body, stopAt));
    assert.equal(text(batches.flat()), 'data: a\n\ndata: stop\n\n');
    assert.equal(up.pulls(), 2);
    assert.equal(up.closed(), true);
    assert.equal(ended, false);
  });

  it('end() frames follow the last upstream frame; a read failure goes to fail(), whose frames close the stream', async () => {
    const closing: FrameTransform = {
      done: false,
      push: (frames) => frames,
      end: () => [encodeFrame('clean end')],
      fail: (err) => [encodeFrame(`broken: ${(err as Error).message}`)],
    };
    const clean = await collect(frameBatches(upstream(['data: x\n\n']).body, closing));
    assert.equal(text(clean.flat()), 'data: x\n\ndata: clean end\n\n');
    const broken = await collect(frameBatches(upstream(['data: x\n\n'], new Error('reset')).body, closing));
    assert.equal(text(broken.flat()), 'data: x\n\ndata: broken: reset\n\n');
  });

  it('when end() fails, the unterminated last frame still goes out before fail() closes the stream', async () => {
    const cutShort: FrameTransform = {
      done: false,
      push: (frames) => frames.map((f) => encodeFrame(`got ${f.data ?? ''}`)),
      end: () => {
        throw new Error('no terminal event');
      },
      fail: (err) => [encodeFrame(`broken: ${(err as Error).message}`)],
    };
    const batches = await collect(frameBatches(upstream(['data: a\n\n', 'data: b']).body, cutShort));
    assert.equal(text(batches.flat()), 'data: got a\n\ndata: got b\n\ndata: broken: no terminal event\n\n');
  });

  it('with PASS_THROUGH a read failure is rethrown after the frames already read', async () => {
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const batch of frameBatches(upstream(['data: x\n\n'], new Error('reset')).body, PASS_THROUGH)) {
        for (const frame of batch) seen.push(frame.data ?? '');
      }
    }, /reset/);
    assert.deepEqual(seen, ['x']);
  });

  it('a transform that throws closes the upstream and hands its error to fail()', async () => {
    const up = upstream(['data: a\n\n', 'data: b\n\n', 'data: c\n\n']);
    const failures: unknown[] = [];
    const throwing: FrameTransform = {
      done: false,
      push: (frames) => {
        if (frames[0]?.data === 'b') throw new Error('bad frame');
        return frames;
      },
      end: () => [],
      fail: (err) => {
        failures.push(err);
        return [encodeFrame('closed')];
      },
    };
    const batches = await collect(frameBatches(up.body, throwing));
    assert.equal(text(batches.flat()), 'data: a\n\ndata: closed\n\n');
    assert.equal((failures[0] as Error).message, 'bad frame');
    assert.equal(up.pulls(), 2, 'nothing is read after the failure');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(up.closed(), true, 'the upstream is closed');
  });

  it('keeps nothing of a read while it waits for the next one', async () => {
    // A stream paced 100 ms apart waits long enough for V8 to move whatever the wait holds to the old
    // generation; the last read's bytes and frames must not be among it.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const body = new UpstreamBody({ pause() {}, resume() {}, cancel() {} });
    const batches = frameBatches(body, PASS_THROUGH);
    let chunk: Buffer | undefined = Buffer.from('data: {"n":1}\n\n');
    const chunkRef = new WeakRef(chunk);
    let frameRef: WeakRef<object> | undefined;
    // Only the then() is kept: the first result itself is dropped once looked at, as the relay does.
    const firstSeen = batches.next().then((r) => {
      assert.equal(r.done, false);
      frameRef = new WeakRef((r.value as readonly SseFrame[])[0] as SseFrame);
    });
    body.push(chunk);
    chunk = undefined;
    await firstSeen;
    const second = batches.next();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    assert.equal(chunkRef.deref(), undefined, 'the last read is not held while waiting');
    assert.equal(frameRef?.deref(), undefined, 'nor its frames');
    body.push(Buffer.from('data: {"n":2}\n\n'));
    const next = await second;
    assert.equal(next.done, false);
    assert.equal((next.value as readonly SseFrame[])[0]?.data, '{"n":2}');
  });

  it('a return() while a read waits closes the upstream and ends that read as done, running no transform', async () => {
    const source = { cancels: 0, pause() {}, resume() {}, cancel() { this.cancels++; } };
    const body = new UpstreamBody(source);
    let failed = 0;
    const batches = frameBatches(body, { ...PASS_THROUGH, fail: (err) => { failed++; throw err; } });
    const waiting = batches.next();
    await batches.return?.();
    assert.deepEqual(await waiting, { value: undefined, done: true }, 'the waiting next() is not left pending');
    assert.equal(source.cancels, 1, 'the upstream is closed once');
    assert.equal(failed, 0, 'the transform is not told of a failure: the reader left');
    await batches.return?.();
    assert.equal(source.cancels, 1, 'a second return() closes nothing more');
  });
});

describe('frameBatches over an UpstreamBody: pulled, the chunks and batches never a promise value', () => {
  /**
   * A paced stream's wait outlives two scavenges, so the promise it waits on is in the old generation when it
   * resolves, and a value it resolved with would be promoted with it: the contract is that these promises
   * resolve with nothing, the chunk and the batch taken from the objects instead.
   */
  function source(): { cancels: number; pauses: number; resumes: number; pause(): void; resume(): void; cancel(): void } {
    return {
      cancels: 0,
      pauses: 0,
      resumes: 0,
      pause() {
        this.pauses++;
      },
      resume() {
        this.resumes++;
      },
      cancel() {
        this.cancels++;
      },
    };
  }
  const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const datas = (r: IteratorResult<readonly SseFrame[]>): (string | null)[] | undefined => (r.done === true ? undefined : r.value.map((f) => f.data));

  it('arm() calls back once take() has the chunk, the end, or the failure it throws', () => {
    const body = new UpstreamBody(source());
    let woken = 0;
    const wake = (): void => {
      woken++;
    };
    assert.equal(body.arm(wake), true, 'nothing arrived: the reader waits');
    body.push(Buffer.from('abc'));
    assert.equal(woken, 1);
    assert.equal(Buffer.from(body.take().value as Uint8Array).toString(), 'abc');
    body.push(Buffer.from('d'));
    body.push(Buffer.from('e'));
    assert.equal(body.arm(wake), false, 'queued: take() has it now');
    assert.equal(Buffer.from(body.take().value as Uint8Array).toString(), 'de', 'what queued meanwhile comes as one chunk');
    assert.equal(body.arm(wake), true);
    body.end();
    assert.equal(woken, 2);
    assert.deepEqual(body.take(), { value: undefined, done: true });
    const broken = new UpstreamBody(source());
    assert.equal(broken.arm(wake), true);
    broken.fail(new Error('reset'));
    assert.equal(woken, 3);
    assert.throws(() => broken.take(), /reset/);
  });

  it('pulls a stream batch by batch: pull() resolves with nothing, take() has the frames, null at the end', async () => {
    const body = new UpstreamBody(source());
    const batches = frameBatches(body, PASS_THROUGH) as unknown as { pull(): Promise<void>; take(): readonly SseFrame[] | null };
    const first = batches.pull();
    body.push(Buffer.from('data: a\n\ndata: b'));
    assert.equal(await first, undefined);
    assert.deepEqual(batches.take()?.map((f) => f.data), ['a']);
    assert.equal(batches.take(), null, 'taken once');
    const second = batches.pull();
    body.push(Buffer.from('\n\n'));
    await second;
    assert.deepEqual(batches.take()?.map((f) => f.data), ['b'], 'a frame split across reads');
    const end = batches.pull();
    body.push(Buffer.from('data: c'));
    await tick();
    body.end();
    await end;
    assert.deepEqual(batches.take()?.map((f) => f.data), ['c'], 'the unterminated last frame at the end');
    await batches.pull();
    assert.equal(batches.take(), null, 'then the end');
  });

  it('gives the same batches as the awaited-value path, for a burst queued before the first read', async () => {
    const src = source();
    const body = new UpstreamBody(src);
    for (let i = 0; i < 20; i++) body.push(Buffer.from(`data: ${i}\n\n`));
    assert.equal(src.pauses, 1, 'a slow reader pauses the upstream');
    body.end();
    const batches = await collect(frameBatches(body, PASS_THROUGH));
    assert.equal(src.resumes, 1, 'and taking the queue resumes it');
    assert.equal(batches.length, 1, 'everything queued is one read, one batch');
    assert.deepEqual(
      batches[0]?.map((f) => f.data),
      Array.from({ length: 20 }, (_, i) => String(i)),
    );
  });

  it('an upstream failure goes to the transform: its frames close the stream, or with PASS_THROUGH the read rejects', async () => {
    const body = new UpstreamBody(source());
    const closing: FrameTransform = { done: false, push: (frames) => frames, end: () => [], fail: () => [encodeFrame('closed')] };
    const batches = frameBatches(body, closing);
    const first = batches.next();
    body.push(Buffer.from('data: a\n\n'));
    assert.deepEqual(datas(await first), ['a']);
    const second = batches.next();
    body.fail(new Error('reset'));
    assert.deepEqual(datas(await second), ['closed']);
    assert.equal((await batches.next()).done, true);

    const plain = new UpstreamBody(source());
    const rethrown = frameBatches(plain, PASS_THROUGH);
    plain.push(Buffer.from('data: a\n\n'));
    plain.fail(new Error('reset'));
    assert.deepEqual(datas(await rethrown.next()), ['a'], 'what arrived before the failure goes out first');
    await assert.rejects(rethrown.next(), /reset/);
  });

  it('chunks that arrive between the wake and the take join the chunk that woke the reader', async () => {
    const body = new UpstreamBody(source());
    const batches = frameBatches(body, PASS_THROUGH);
    const first = batches.next();
    body.push(Buffer.from('data: 0\n\n'));
    body.push(Buffer.from('data: 1\n\n'));
    body.push(Buffer.from('data: 2\n\n'));
    assert.deepEqual(datas(await first), ['0', '1', '2'], 'one read, one batch');
  });

  it('reads on past a read that completes no frame, and pull() twice without take() loses nothing', async () => {
    const body = new UpstreamBody(source());
    const batches = frameBatches(body, PASS_THROUGH) as unknown as { pull(): Promise<void>; take(): readonly SseFrame[] | null };
    const first = batches.pull();
    body.push(Buffer.from('data: a'));
    await tick();
    body.push(Buffer.from('bc\n\n'));
    await first;
    await batches.pull();
    assert.deepEqual(batches.take()?.map((f) => f.data), ['abc']);
    assert.equal(batches.take(), null);
  });

  it('a transform that is done cancels the upstream; a return() during pull() ends it without fail()', async () => {
    const src = source();
    const body = new UpstreamBody(src);
    let seen = 0;
    const once: FrameTransform = {
      get done() {
        return seen > 0;
      },
      push: (frames) => {
        seen++;
        return frames;
      },
      end: () => assert.fail('end() after done'),
      fail: () => assert.fail('fail() after done'),
    };
    const batches = frameBatches(body, once);
    const first = batches.next();
    body.push(Buffer.from('data: a\n\n'));
    assert.deepEqual(datas(await first), ['a']);
    await tick();
    assert.equal(src.cancels, 1);
    assert.equal((await batches.next()).done, true);

    const src2 = source();
    const waitingBody = new UpstreamBody(src2);
    let failed = 0;
    const counting: FrameTransform = { done: false, push: (frames) => frames, end: () => [], fail: () => (failed++, []) };
    const pulled = frameBatches(waitingBody, counting) as unknown as { pull(): Promise<void>; take(): readonly SseFrame[] | null; return(): Promise<unknown> };
    const pending = pulled.pull();
    await pulled.return();
    await pending;
    assert.equal(pulled.take(), null, 'the pending pull() ends as the end');
    assert.equal(src2.cancels, 1);
    assert.equal(failed, 0);
  });

  type Polled = { poll: ((onReady: () => void) => boolean) | null; take(): readonly SseFrame[] | null; return(): Promise<unknown> };

  it('poll() waits without a promise: the body is armed, never iterated, and the reader is called back in a microtask', async () => {
    const body = new UpstreamBody(source());
    const batches = frameBatches(body, PASS_THROUGH) as unknown as Polled;
    const poll = batches.poll;
    assert.ok(poll !== null);
    let called = 0;
    const onReady = (): void => {
      called++;
    };
    assert.equal(poll(onReady), false, 'nothing arrived: the reader waits');
    body.push(Buffer.from('data: a\n\ndata: b'));
    assert.equal(called, 0, 'not called from inside the upstream\'s push');
    await Promise.resolve();
    assert.equal(called, 1, 'called in a microtask');
    assert.equal(poll(onReady), true);
    assert.deepEqual(batches.take()?.map((f) => f.data), ['a']);
    assert.equal(poll(onReady), false, 'the unterminated frame waits for more');
    body.push(Buffer.from('\n\n'));
    body.push(Buffer.from('data: c\n\n'));
    await Promise.resolve();
    assert.equal(called, 2);
    assert.equal(poll(onReady), true);
    assert.equal(poll(onReady), true, 'a batch not yet taken stays the next one');
    assert.deepEqual(batches.take()?.map((f) => f.data), ['b', 'c'], 'what arrived before the reader came back joins the read');
    assert.equal(batches.take(), null, 'taken once');
    assert.equal(poll(onReady), false);
    body.end();
    await Promise.resolve();
    assert.equal(called, 3);
    assert.equal(poll(onReady), true);
    assert.equal(batches.take(), null, 'the end');
  });

  it('poll() throws the upstream failure with PASS_THROUGH, hands it to a transform, and a return() while waiting ends it', async () => {
    const broken = new UpstreamBody(source());
    const passing = frameBatches(broken, PASS_THROUGH) as unknown as Polled;
    let called = 0;
    assert.equal(passing.poll?.(() => called++), false);
    broken.fail(new Error('reset'));
    await Promise.resolve();
    assert.equal(called, 1);
    assert.throws(() => passing.poll?.(() => called++), /reset/);

    const failing = new UpstreamBody(source());
    const closing: FrameTransform = { done: false, push: (frames) => frames, end: () => [], fail: () => [encodeFrame('closed')] };
    const handled = frameBatches(failing, closing) as unknown as Polled;
    assert.equal(handled.poll?.(() => called++), false);
    failing.fail(new Error('timeout'));
    await Promise.resolve();
    assert.equal(handled.poll?.(() => called++), true);
    assert.deepEqual(handled.take()?.map((f) => f.data), ['closed']);

    const src = source();
    const waiting = new UpstreamBody(src);
    const leaving = frameBatches(waiting, PASS_THROUGH) as unknown as Polled;
    let woken = 0;
    assert.equal(leaving.poll?.(() => woken++), false);
    await leaving.return();
    await Promise.resolve();
    assert.equal(woken, 1, 'the waiting reader is called back');
    assert.equal(leaving.poll?.(() => woken++), true);
    assert.equal(leaving.take(), null, 'and finds the end');
    assert.equal(src.cancels, 1);
  });

  it('poll() reads any other body the same way (an async generator, adapted): one way to read a stream', async () => {
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('data: a\n\n');
    }
    const batches = frameBatches(chunks(), PASS_THROUGH) as unknown as Polled;
    const poll = batches.poll;
    assert.ok(poll !== null);
    let called = 0;
    assert.equal(poll(() => called++), false, 'the first chunk is still to come');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(called, 1);
    assert.equal(poll(() => called++), true);
    assert.deepEqual(batches.take()?.map((f) => f.data), ['a']);
  });

  it('a transform that throws cancels the upstream and hands its error to fail()', async () => {
    const src = source();
    const body = new UpstreamBody(src);
    const failures: unknown[] = [];
    const throwing: FrameTransform = {
      done: false,
      push: () => {
        throw new Error('bad frame');
      },
      end: () => [],
      fail: (err) => {
        failures.push(err);
        return [encodeFrame('closed')];
      },
    };
    const batches = frameBatches(body, throwing);
    const first = batches.next();
    body.push(Buffer.from('data: a\n\n'));
    assert.deepEqual(datas(await first), ['closed']);
    assert.equal((failures[0] as Error).message, 'bad frame');
    await tick();
    assert.equal(src.cancels, 1, 'the upstream is not wanted any more');
  });
});
