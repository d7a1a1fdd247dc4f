// readWhole: a complete UpstreamBody is answered at once, as one Buffer of all its chunks; anything else is read
// to its end, and a body that breaks off rejects, whichever way it was read.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readWhole } from '../../../core/providers/read-body.js';
import { UpstreamBody } from '../../../core/providers/upstream-body.js';
import { UpstreamFailure } from '../../../core/providers/provider.js';

function body(): { body: UpstreamBody; resumed: () => number } {
  let resumes = 0;
  const b = new UpstreamBody({
    pause() {},
    resume() {
      resumes++;
    },
    cancel() {},
  });
  return { body: b, resumed: () => resumes };
}

describe('readWhole', () => {
  it('refuses an answer past its bound as a broken one: rejected, whether it had all arrived or still arrives', async () => {
    const complete = body().body;
    complete.push(Buffer.alloc(11));
    complete.end();
    const early = readWhole(complete, 10);
    assert.ok(early instanceof Promise, 'a rejected promise, never a throw from the call');
    await assert.rejects(early, (err: unknown) => err instanceof UpstreamFailure && err.reason === 'protocol' && /over 10 bytes/.test(err.message));
    let cancelled = 0;
    const arriving = new UpstreamBody({ pause() {}, resume() {}, cancel: () => (cancelled += 1) });
    const late = readWhole(arriving, 10);
    arriving.push(Buffer.alloc(6));
    arriving.push(Buffer.alloc(6));
    assert.ok(late instanceof Promise);
    await assert.rejects(late, (err: unknown) => err instanceof UpstreamFailure && /over 10 bytes/.test(err.message));
    assert.equal(cancelled, 1, 'the rest of the answer is not read');
  });

  it('answers a body that has all arrived synchronously, its chunks joined', () => {
    const { body: b } = body();
    b.push(Buffer.from('{"a":'));
    b.push(new Uint8Array(Buffer.from('1}')));
    b.end();
    const whole = readWhole(b);
    assert.ok(Buffer.isBuffer(whole), 'a Buffer, not a promise');
    assert.equal(whole.toString(), '{"a":1}');
    assert.equal(b.completed()?.length, 0, 'the body is then read to its end');
  });

  it('answers an empty complete body with an empty Buffer', () => {
    const { body: b } = body();
    b.end();
    const whole = readWhole(b);
    assert.ok(Buffer.isBuffer(whole));
    assert.equal(whole.length, 0);
  });

  it('waits for a body still arriving, chunks that came before and after the call alike', async () => {
    const { body: b } = body();
    b.push(Buffer.from('ab'));
    const whole = readWhole(b);
    assert.ok(whole instanceof Promise);
    b.push(Buffer.from('cd'));
    setImmediate(() => {
      b.push(Buffer.from('ef'));
      b.end();
    });
    assert.equal((await whole).toString(), 'abcdef');
  });

  it('rejects when the body breaks off, complete-looking or not, with an UpstreamFailure the relay may fail over on', async () => {
    const brokeOff = (cause: string) => (err: unknown): boolean =>
      err instanceof UpstreamFailure && err.reason === 'protocol' && err.cause instanceof Error && err.cause.message === cause;
    const { body: early } = body();
    early.push(Buffer.from('partial'));
    early.fail(new Error('reset'));
    await assert.rejects(async () => readWhole(early), brokeOff('reset'));
    const { body: late } = body();
    const whole = readWhole(late);
    late.push(Buffer.from('x'));
    late.fail(new Error('timeout'));
    await assert.rejects(async () => whole, brokeOff('timeout'));
  });

  it('reads any other async iterable to its end', async () => {
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('one ');
      yield new Uint8Array(Buffer.from('two'));
    }
    const whole = readWhole(chunks());
    assert.ok(whole instanceof Promise);
    assert.equal((await whole).toString(), 'one two');
  });

  it('resumes a paused upstream when it takes what was queued', () => {
    const { body: b, resumed } = body();
    for (let i = 0; i < 20; i++) b.push(Buffer.from(String(i % 10)));
    b.end();
    assert.equal(String(readWhole(b)), '01234567890123456789');
    assert.equal(resumed(), 1);
  });
});
