// BodyBytes holds a request body: small ones in their reads, large ones in a pooled slab that goes back to
// the pool on release, after which nothing can read it (so no request ever reads another's bytes).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { BodyBytes } from '../../../core/formats/body-bytes.js';
import { BodyPool } from '../../../core/formats/body-pool.js';

const pool = new BodyPool();
const pooledBytes = (): number => pool.state.freeBytes;

/** `bytes` cut into reads of `size` bytes, as node:http hands a body over. */
function reads(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

function sent(body: BodyBytes): Buffer {
  const upstream = body.forUpstream();
  return Buffer.isBuffer(upstream) ? upstream : Buffer.concat([...upstream]);
}

describe('BodyBytes', () => {
  it('gives the same bytes whatever the size and the reads: joined, copied, and as sent upstream', () => {
    for (const size of [0, 1, 100, 65_535, 65_536, 300_000, 1_048_576, 2_500_001]) {
      for (const readSize of [1_000, 65_536]) {
        const bytes = randomBytes(size);
        const body = BodyBytes.fromReads(reads(bytes, readSize), size, pool);
        assert.equal(body.length, size);
        assert.ok(body.joined().equals(bytes), `joined, ${size} bytes in reads of ${readSize}`);
        const copy = Buffer.alloc(size + 7, 0xff);
        body.copyInto(copy);
        assert.ok(copy.subarray(0, size).equals(bytes), `copyInto, ${size}`);
        assert.ok(copy.subarray(size).equals(Buffer.alloc(7, 0xff)), 'copyInto writes nothing past the body');
        assert.ok(sent(body).equals(bytes), `forUpstream, ${size}`);
        body.release();
      }
    }
  });

  it('sends a large body as fresh copies of at most 1 MiB, a small one as its own Buffer', () => {
    const bytes = randomBytes(2_500_000);
    const large = BodyBytes.fromReads(reads(bytes, 65_536), bytes.length, pool);
    const copies = large.forUpstream();
    assert.ok(!Buffer.isBuffer(copies));
    const list = [...copies];
    assert.deepEqual(
      list.map((c) => c.length),
      [1_048_576, 1_048_576, 402_848],
    );
    const joined = large.joined();
    for (const copy of list) assert.notEqual(copy.buffer, joined.buffer, 'a copy, not a view of the pooled slab');
    large.release();

    const small = Buffer.from('{"model":"m"}');
    const body = BodyBytes.of(small);
    assert.equal(body.forUpstream(), small);
  });

  it('a released body cannot be read, and a send in progress stops at its next copy', () => {
    const bytes = randomBytes(2_200_000);
    const body = BodyBytes.fromReads(reads(bytes, 65_536), bytes.length, pool);
    const copies = body.forUpstream() as Iterable<Buffer>;
    const iterator = copies[Symbol.iterator]();
    assert.equal(iterator.next().value?.length, 1_048_576);
    body.release();
    assert.throws(() => iterator.next(), /released/);
    assert.throws(() => body.joined(), /released/);
    assert.throws(() => body.copyInto(Buffer.alloc(bytes.length)), /released/);
    assert.throws(() => body.forUpstream(), /released/);
    body.release(); // twice is harmless
  });

  it('reuses a released slab for the next large body, which then reads its own bytes', () => {
    const first = randomBytes(400_000);
    const a = BodyBytes.fromReads(reads(first, 65_536), first.length, pool);
    const before = pooledBytes();
    a.release();
    assert.equal(pooledBytes(), before + 524_288, 'the 512 KiB slab is back in the pool');
    const second = randomBytes(300_000);
    const b = BodyBytes.fromReads(reads(second, 65_536), second.length, pool);
    assert.equal(pooledBytes(), before, 'and taken again');
    assert.ok(b.joined().equals(second));
    b.release();
  });

  it('derives an edited body from pieces: a copy, released with the body it came from', () => {
    const bytes = randomBytes(300_000);
    const body = BodyBytes.fromReads(reads(bytes, 65_536), bytes.length, pool);
    const source = body.joined();
    const pieces = [source.subarray(0, 10), Buffer.from('EDIT'), source.subarray(20)];
    const edited = body.derive(pieces);
    const expected = Buffer.concat(pieces);
    assert.ok(edited.joined().equals(expected));
    assert.notEqual(edited.joined().buffer, source.buffer, 'a copy, not views of the source');
    assert.equal(sent(edited), edited.joined(), 'an edit is sent as its own Buffer');
    const twice = edited.derive([edited.joined().subarray(1)]);
    assert.ok(twice.joined().equals(expected.subarray(1)));
    const small = body.derive([Buffer.from('{}')]);
    assert.equal(small.joined().toString(), '{}');
    const before = pooledBytes();
    body.release();
    assert.equal(pooledBytes(), before + 524_288, 'the client body\'s 512 KiB slab is back');
    for (const derived of [edited, twice, small]) assert.throws(() => derived.joined(), /released/);
  });

  it('sends a slab view wrapped by a plugin as copies too, never as the view', () => {
    const bytes = randomBytes(200_000);
    const body = BodyBytes.fromReads(reads(bytes, 65_536), bytes.length, pool);
    const wrapped = BodyBytes.of(body.joined());
    const upstream = wrapped.forUpstream();
    assert.ok(!Buffer.isBuffer(upstream), 'copies, not the slab');
    assert.ok(Buffer.concat([...upstream]).equals(bytes));
    body.release();
  });

  it('counts the slabs out: every one taken is given back on release', () => {
    const before = pool.state.inUse;
    const bodies = [300_000, 70_000, 1_500_000].map((size) => BodyBytes.fromReads([randomBytes(size)], size, pool));
    assert.equal(pool.state.inUse, before + 3);
    for (const body of bodies) body.release();
    assert.equal(pool.state.inUse, before);
  });

  it('drops the largest free slabs first when over its cap, so huge bodies cannot crowd out common sizes', () => {
    const huge = [BodyBytes.fromReads([Buffer.alloc(20_000_000)], 20_000_000, pool), BodyBytes.fromReads([Buffer.alloc(20_000_000)], 20_000_000, pool)];
    for (const body of huge) body.release();
    const small = BodyBytes.fromReads([Buffer.alloc(100_000)], 100_000, pool);
    small.release();
    assert.ok(pooledBytes() <= 64 * 1024 * 1024);
    // The 128 KiB slab stayed: the next body of that size takes it (the free bytes go down by its size).
    const free = pooledBytes();
    const again = BodyBytes.fromReads([Buffer.alloc(100_000)], 100_000, pool);
    assert.equal(pooledBytes(), free - 131_072);
    again.release();
  });

  it('keeps at most 64 MiB of released slabs', () => {
    const bodies = Array.from({ length: 40 }, () => BodyBytes.fromReads([Buffer.alloc(2_000_000, 1)], 2_000_000, pool));
    for (const body of bodies) body.release();
    assert.ok(pooledBytes() <= 64 * 1024 * 1024, `${pooledBytes()} bytes pooled`);
    assert.ok(pooledBytes() >= 60 * 1024 * 1024, 'the pool fills up to its cap');
  });

  it('gives every free slab back once no large body came for the idle time, and not before', () => {
    const body = BodyBytes.fromReads([Buffer.alloc(200_000)], 200_000, pool);
    const takenAt = Date.now();
    body.release();
    assert.ok(pooledBytes() > 0);
    assert.equal(pool.dropIdle(takenAt + 1_000, 30_000), 0, 'still in use lately');
    assert.ok(pooledBytes() > 0);
    const free = pooledBytes();
    assert.equal(pool.dropIdle(takenAt + 31_000, 30_000), free);
    assert.equal(pooledBytes(), 0);
    assert.equal(pool.dropIdle(takenAt + 62_000, 30_000), 0, 'nothing left to drop');
  });
});
