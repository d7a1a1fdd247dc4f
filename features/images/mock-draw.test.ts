// The mock's pictures: real PNGs at the size asked for (at most 1024 a side, the aspect kept), the same for the
// same prompt and different for another, and an edit that shows the uploaded picture (scaled, tinted).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { drawImage, editImage, mockSizeOf, readSource } from './mock-draw.js';

function solid(width: number, height: number, rgb: readonly [number, number, number]): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([...rgb, 255], i);
  return PNG.sync.write(png);
}

describe('mockSizeOf', () => {
  it('takes WxH, caps 1024 a side keeping the aspect, and reads auto or nonsense as 1024x1024', () => {
    assert.deepEqual(mockSizeOf('256x512'), { width: 256, height: 512 });
    assert.deepEqual(mockSizeOf('1536x1024'), { width: 1024, height: 683 });
    assert.deepEqual(mockSizeOf('4096x4096'), { width: 1024, height: 1024 });
    for (const size of ['auto', undefined, 'big', '0x10']) assert.deepEqual(mockSizeOf(size), { width: 1024, height: 1024 }, String(size));
  });
});

describe('drawImage', () => {
  it('draws a PNG of the size, the same for a prompt, another for another prompt or index', () => {
    const size = { width: 64, height: 32 };
    const png = PNG.sync.read(drawImage('a fox', 0, size));
    assert.deepEqual([png.width, png.height], [64, 32]);
    assert.ok(drawImage('a fox', 0, size).equals(drawImage('a fox', 0, size)));
    assert.ok(!drawImage('a fox', 0, size).equals(drawImage('a cat', 0, size)));
    assert.ok(!drawImage('a fox', 0, size).equals(drawImage('a fox', 1, size)));
  });
});

describe('editImage', () => {
  it('shows the uploaded picture: a red upload stays red-dominant, scaled to the size asked for', () => {
    const source = readSource(solid(8, 8, [250, 0, 0]));
    assert.ok(source !== null);
    const out = PNG.sync.read(editImage(source, 'warmer', 0, { width: 16, height: 16 }));
    assert.deepEqual([out.width, out.height], [16, 16]);
    const [r, g, b] = [out.data[0] as number, out.data[1] as number, out.data[2] as number];
    assert.ok(r >= 187 && g <= 64 && b <= 64, `pixel ${r},${g},${b}`);
  });

  it('does not decode what it cannot or should not: not a PNG, or a PNG declaring a huge size', () => {
    assert.equal(readSource(Buffer.from('not a png')), null);
    const huge = solid(1, 1, [0, 0, 0]);
    huge.writeUInt32BE(100_000, 16);
    huge.writeUInt32BE(100_000, 20);
    assert.equal(readSource(huge), null);
    const drawn = PNG.sync.read(editImage(Buffer.from('jpeg bytes'), 'x', 0, { width: 8, height: 8 }));
    assert.deepEqual([drawn.width, drawn.height], [8, 8]);
  });
});
